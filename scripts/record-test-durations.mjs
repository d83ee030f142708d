// Writes tests/file-durations.json, the order vitest.config.ts (LongestFirstSequencer) starts the
// integration and process files in, from vitest's cache of the last run's durations. Run it after a
// full `pnpm test:all` on a quiet machine; the figures only
// order the files, so they need not be exact.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const cacheDir = path.join(root, "node_modules/.vite/vitest");
const seconds = {};
for (const hash of readdirSync(cacheDir)) {
  const { results } = JSON.parse(readFileSync(path.join(cacheDir, hash, "results.json"), "utf8"));
  for (const [key, { duration }] of results) {
    const [project, file] = key.split(":");
    // The cache keeps files long deleted or renamed.
    if ((project === "integration" || project === "processes") && typeof duration === "number" && existsSync(path.join(root, file)))
      seconds[file] = Math.max(1, Math.round(duration / 1000));
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(path.join(root, "tests/file-durations.json"), `${JSON.stringify({ seconds: sorted }, null, 2)}\n`);
console.log(`tests/file-durations.json: ${Object.keys(sorted).length} files`);
