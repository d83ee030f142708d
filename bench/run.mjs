#!/usr/bin/env node
// `pnpm bench` (the root package.json's "bench" script): every benchmark, one after the other,
// so they never compete for the CPU. Arguments are passed to each script (each reads only the
// options it knows). TypeScript benchmarks run through tsx. bench/list-observatories.ts stays
// out: it measures one query, not a goal of an issue, and is run on its own; so does
// bench/cluster-throughput.ts, which starts a whole cluster six times and takes about 4.5 minutes
// (docs/BENCHMARKS.md says how to run it).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const scripts = [
  "cold-start.mjs",
  "http-overhead.mjs",
  "announcement-create.ts",
  "motd-pending.mjs",
  "hot-reads.mjs",
  "dispatch-latency.ts",
  "held-queue-submissions.ts",
];
let failed = false;
for (const script of scripts) {
  process.stdout.write(`\n=== bench/${script}\n`);
  const loader = script.endsWith(".ts") ? ["--import", "tsx"] : [];
  const result = spawnSync(process.execPath, [...loader, path.join(here, script), ...process.argv.slice(2)], {
    stdio: "inherit",
    cwd: path.resolve(here, ".."),
  });
  if (result.status !== 0) {
    process.stderr.write(`bench/${script} failed (${result.signal ?? `exit ${result.status}`})\n`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
