import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cruiseDomain, twoWayPairs, type CruiseResult } from "../../scripts/check-dependencies.mjs";

// The rooms of packages/domain (README there): each rule of .dependency-cruiser.mjs and the pair check of
// scripts/check-dependencies.mjs shown refusing a planted violation in a small tree, and leaving the allowed forms alone.
const tree: Record<string, string> = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { module: "ESNext", moduleResolution: "Bundler" } }),
  // The platform names a feature.
  "platform/transport.ts": 'import { inner } from "../features/alpha/inner";\nexport const transport = inner;\n',
  "platform/errors.ts": "export const failure = 1;\n",
  "features/alpha/index.ts": 'export { inner } from "./inner";\n',
  "features/alpha/inner.ts": 'import { failure } from "../../platform/errors";\nexport const inner = failure;\n',
  // beta walks into alpha past its door; epsilon uses the door.
  "features/beta/index.ts": 'import { inner } from "../alpha/inner";\nexport const beta = inner;\n',
  "features/epsilon/index.ts": 'import { inner } from "../alpha";\nexport const epsilon = inner;\n',
  // gamma and delta import each other, each through the other's door.
  "features/gamma/index.ts": 'export { g } from "./g";\n',
  "features/gamma/g.ts": 'import { d } from "../delta";\nexport const g = d;\n',
  "features/delta/index.ts": 'export { d } from "./d";\n',
  "features/delta/d.ts": "export const d = 1;\n",
  "features/delta/e.ts": 'import { g } from "../gamma";\nexport const e = g;\n',
  // Two features of the old cycle, once let into each other's files: frames walks into observations past its door, then uses it.
  "features/observations/index.ts": 'export { dispatch } from "./dispatch";\n',
  "features/observations/dispatch.ts": "export const dispatch = 1;\n",
  "features/frames/preview.ts": 'import { dispatch } from "../observations/dispatch";\nexport const preview = dispatch;\n',
  "features/frames/search.ts": 'import { dispatch } from "../observations";\nexport const search = dispatch;\n',
};

let root: string;
let result: CruiseResult;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "domain-rooms-"));
  for (const [file, text] of Object.entries(tree)) {
    const full = file === "tsconfig.json" ? path.join(root, file) : path.join(root, "packages/domain/src", file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  result = cruiseDomain(root);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const violations = (rule: string) =>
  result.summary.violations
    .filter((violation) => violation.rule.name === rule)
    .map(({ from, to }) => `${from} -> ${to}`.replaceAll("packages/domain/src/", ""));
const violationsFrom = (rule: string, feature: string) => violations(rule).filter((violation) => violation.startsWith(`features/${feature}/`));

describe("the domain's rooms", () => {
  it("refuses a platform module that imports a feature", () => {
    expect(violations("domain-platform-imports-no-feature")).toEqual(["platform/transport.ts -> features/alpha/inner.ts"]);
  });

  it("refuses a feature that imports a file inside another, and lets its door through", () => {
    expect(violationsFrom("domain-feature-enters-another-by-its-door", "beta")).toEqual(["features/beta/index.ts -> features/alpha/inner.ts"]);
    expect(violationsFrom("domain-feature-enters-another-by-its-door", "epsilon")).toEqual([]);
  });

  it("holds a feature of the old cycle to the same door: frames reaching into observations' dispatch.ts is refused", () => {
    expect(violationsFrom("domain-feature-enters-another-by-its-door", "frames")).toEqual(["features/frames/preview.ts -> features/observations/dispatch.ts"]);
  });

  it("finds two features that import each other both ways, doors or not", () => {
    expect(twoWayPairs(result)).toEqual(["delta <-> gamma"]);
  });
});
