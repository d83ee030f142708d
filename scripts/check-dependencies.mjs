// The repository's dependency rules in one dependency-cruiser run (it takes about 3 s of CPU, so it runs once):
// `.dependency-cruiser.mjs`'s rules over every folder, and no two features of packages/domain importing each other both
// ways (packages/domain/README.md). dependency-cruiser's folder-scoped rules see a cycle of any length, not a pair, so
// the pairs are read from its JSON output: every import from features/<a>/ into features/<b>/ makes the edge a -> b, and
// an edge whose reverse exists is a two-way pair.
// Usage: node scripts/check-dependencies.mjs (run by `pnpm lint` and `pnpm test`'s static checks).
import { execFileSync } from "node:child_process";
import { format } from "dependency-cruiser";
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

/** The folders the rules hold over. */
const CHECKED = ["packages", "apps", "tests", "bench", "scripts"];

/** dependency-cruiser's JSON of `folders` under `root` (packages/domain/src by default), with the repository's configuration. */
export function cruiseDomain(root, folders = ["packages/domain/src"]) {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const args = ["--config", path.join(repo, ".dependency-cruiser.mjs"), "--output-type", "json", "--no-progress", ...folders];
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
  const result = cruiseDomain(process.cwd(), CHECKED);
  const rules = await format(result, { outputType: "err" });
  process.stdout.write(rules.output);
  const pairs = twoWayPairs(result);
  if (pairs.length > 0) process.stderr.write(`Features that import each other both ways (break one side with a door):\n  ${pairs.join("\n  ")}\n`);
  if (rules.exitCode !== 0 || pairs.length > 0) process.exit(1);
}
