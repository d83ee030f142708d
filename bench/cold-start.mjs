#!/usr/bin/env node
// Cold and warm start of the real server: time from spawn to the first 200 on /api/health.
//
//   node bench/cold-start.mjs [--runs 3]
//
// Scenarios, each started with `node --import tsx apps/server/src/main.ts` (MERIDIAN_ROLE=all,
// embedded PostgreSQL and S3, LOG_LEVEL=warn) and stopped with SIGTERM before the next:
//   fresh + empty tsx cache  a new DATA_DIR (initdb + migrations) and a new TMPDIR, so tsx
//                            transpiles every TypeScript file again (a first start after install)
//   fresh DATA_DIR           a new DATA_DIR (initdb + migrations), tsx cache already warm
//   existing DATA_DIR        restart on the DATA_DIR of the previous run (warm start)
// Idle RSS is the server process's VmRSS 3 s after it answered; the embedded PostgreSQL is
// reported beside it as PSS summed over the postmaster and its backends.
import path from "node:path";
import {
  cpuSecondsWithChildren,
  freePort,
  installCleanupHooks,
  loadAverage,
  machineDescription,
  makeTempDir,
  median,
  mib,
  postgresPss,
  readRss,
  removeTempDirs,
  repoRoot,
  sleep,
  spawnMeridian,
  stopChild,
  waitForStatus,
  writeResult,
} from "./lib.mjs";

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf("--runs") + 1] || 3) || 3;
const IDLE_SETTLE_MS = 3000;

installCleanupHooks();
const loadAtStart = loadAverage();

async function startOnce({ dataDir, tmpDir }) {
  const [port, postgresPort] = [await freePort(), await freePort()];
  const since = performance.now();
  const server = spawnMeridian({ dataDir, port, postgresPort, tmpDir });
  try {
    const readyMs = await waitForStatus(server, `${server.baseUrl}/api/health`, { since, intervalMs: 10 });
    const cpu = cpuSecondsWithChildren(server.pid);
    await sleep(IDLE_SETTLE_MS);
    const rss = readRss(server.pid);
    const pgPss = postgresPss(dataDir);
    const health = await fetch(`${server.baseUrl}/api/health`).then((response) => response.json());
    return { readyMs, cpu, rss, pgPss, status: health.status };
  } finally {
    const exit = await stopChild(server);
    if (exit && exit.code !== 0) process.stderr.write(`[bench] server exited with ${JSON.stringify(exit)}\n${server.output}\n`);
  }
}

async function main() {
  const rows = [];
  const scenarios = [
    { name: "fresh DATA_DIR, empty tsx cache", fresh: true, freshTmp: true },
    { name: "fresh DATA_DIR (initdb + migrations)", fresh: true, freshTmp: false },
    { name: "existing DATA_DIR (warm start)", fresh: false, freshTmp: false },
  ];
  let previousDataDir;
  for (let run = 1; run <= runs; run += 1) {
    for (const scenario of scenarios) {
      let dataDir = previousDataDir;
      if (scenario.fresh || !dataDir) dataDir = await makeTempDir("data");
      const tmpDir = scenario.freshTmp ? await makeTempDir("tmp") : undefined;
      const result = await startOnce({ dataDir, tmpDir });
      previousDataDir = dataDir;
      rows.push({ scenario: scenario.name, run, ...result });
      process.stdout.write(
        `run ${run}  ${scenario.name.padEnd(40)} ${(result.readyMs / 1000).toFixed(2).padStart(6)} ` +
          `s  CPU ${result.cpu.toFixed(2).padStart(5)} s  node RSS ${mib(result.rss).padStart(8)} ` +
          ` PostgreSQL PSS ${mib(result.pgPss).padStart(8)}  (${result.status})\n`,
      );
    }
  }

  const machine = machineDescription();
  const lines = [
    `# Cold start`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/cold-start.mjs ` +
      `--runs ${runs}\` on ${machine.cores} cores (${machine.cpuModel}), ${machine.memory} ` +
      `RAM, Node ${machine.node}, ${machine.platform}. Load average (1 / 5 / 15 min) at ` +
      `the start: ${loadAtStart}, at the end: ${machine.loadAverage}. The machine is shared ` +
      `with other work, so single numbers are noisy; read the medians.`,
    "",
    "Ready: time from spawn of `node --import tsx apps/server/src/main.ts` (MERIDIAN_ROLE=all, embedded PostgreSQL and S3) " +
      "to the first 200 on `GET /api/health`. CPU: user + system CPU seconds the server process (and the initdb / pg_ctl " +
      "runs it waited for) had used by then, which depends less on the other load than the wall time; the daemonized " +
      "PostgreSQL server itself is not included. Idle RSS: the server's VmRSS 3 s after ready; PostgreSQL: PSS summed over " +
      "the embedded postmaster and its backends.",
    "",
    "| Scenario | Runs | Ready (median) | Ready (min – max) | CPU to ready (median) | Node RSS idle (median) | PostgreSQL PSS idle (median) |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const scenario of scenarios) {
    const mine = rows.filter((row) => row.scenario === scenario.name);
    const ready = mine.map((row) => row.readyMs);
    lines.push(
      `| ${scenario.name} | ${mine.length} | ${(median(ready) / 1000).toFixed(2)} s | ${(Math.min(...ready) / 1000).toFixed(2)} ` +
        `– ${(Math.max(...ready) / 1000).toFixed(2)} s | ${median(mine.map((row) => row.cpu)).toFixed(2)} ` +
        `s | ${mib(median(mine.map((row) => row.rss)))} | ${mib(median(mine.map((row) => row.pgPss ?? 0)))} ` +
        `|`,
    );
  }
  lines.push(
    "",
    "Individual runs:",
    "",
    "| Run | Scenario | Ready | CPU to ready | Node RSS idle | PostgreSQL PSS idle | /api/health status |",
    "|---:|---|---:|---:|---:|---:|---|",
  );
  for (const row of rows)
    lines.push(
      `| ${row.run} | ${row.scenario} | ${(row.readyMs / 1000).toFixed(2)} s | ${row.cpu.toFixed(2)} s | ${mib(row.rss)} | ${mib(row.pgPss)} | ${row.status} |`,
    );
  const markdown = `${lines.join("\n")}\n`;
  const file = await writeResult("cold-start.md", markdown);
  process.stdout.write(`\n${markdown}\nwritten to ${path.relative(repoRoot, file)}\n`);
}

try {
  await main();
} finally {
  await removeTempDirs();
}
