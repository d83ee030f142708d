// No two features of packages/domain import each other both ways (packages/domain/README.md). dependency-cruiser's
// folder-scoped rules see a cycle of any length, not a pair, so this reads its JSON output instead: every import from
// features/<a>/ into features/<b>/ makes the edge a -> b, and an edge whose reverse exists is a two-way pair.
// Usage: node scripts/check-feature-pairs.mjs [directory holding packages/domain/src] (run by `pnpm lint`).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FEATURES = "packages/domain/src/features/";

/** The two-way pairs of features in a dependency-cruiser result, each as "a <-> b" with a before b. */
export function twoWayPairs(result) {
  const edges = new Set();
  for (const module of result.modules) {
    if (!module.source.startsWith(FEATURES)) continue;
    const from = module.source.slice(FEATURES.length).split("/")[0];
    for (const dependency of module.dependencies) {
      if (!dependency.resolved.startsWith(FEATURES)) continue;
      const to = dependency.resolved.slice(FEATURES.length).split("/")[0];
      if (to !== from) edges.add(`${from} ${to}`);
    }
  }
  return [...edges]
    .map((edge) => edge.split(" "))
    .filter(([from, to]) => from < to && edges.has(`${to} ${from}`))
    .map(([from, to]) => `${from} <-> ${to}`)
    .sort();
}

/** dependency-cruiser's JSON of packages/domain/src under `root`, with the repository's configuration. */
export function cruiseDomain(root) {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const args = ["--config", path.join(repo, ".dependency-cruiser.mjs"), "--output-type", "json", "--no-progress", "packages/domain/src"];
  let output;
  try {
    output = execFileSync(path.join(repo, "node_modules/.bin/depcruise"), args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
  } catch (error) {
    // A rule's violation exits non-zero with the whole result still on stdout.
    if (!error.stdout) throw error;
    output = error.stdout;
  }
  return JSON.parse(output);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pairs = twoWayPairs(cruiseDomain(path.resolve(process.argv[2] ?? ".")));
  if (pairs.length > 0) {
    process.stderr.write(`Features that import each other both ways (break one side with a door):\n  ${pairs.join("\n  ")}\n`);
    process.exit(1);
  }
}
