/**
 * Submissions to an observatory that holds its queue (offline: the daytime of most of a network),
 * as that queue grows: does each submission cost more the more observations already wait? Each
 * submission queues a dispatch job, which until 2026-11-28 read and planned up to DISPATCH_WINDOW
 * (500) waiting observations before finding the observatory offline; now its document answers.
 * The peer is the same run's first submissions, on a queue still short: a flat cost reads ×1.00.
 *
 *   node --import tsx bench/held-queue-submissions.ts [--submissions 1500] [--rounds 2]
 *
 * The server runs as `pnpm start` does (bench/dispatch-server.ts, server and worker in one
 * process), one fresh server a round; submissions go one at a time, with a short pause every
 * fifth so that the jobs they queued run beside the next ones, as they would. Results:
 * bench/results/held-queue-submissions.md.
 */
import { callJson, installCleanupHooks, loadAverage, machineDescription, makeTempDir, numberOption, percentile, removeTempDirs, writeResult } from "./lib.mjs";
import { forkBenchProcess, meridianServerEnv } from "./forked-process";

const SUBMISSIONS = numberOption("submissions", 1500);
const ROUNDS = numberOption("rounds", 2);
/** The first and the last this many submissions of a round are compared, after the first WARMUP. */
const SLICE = 200;
const WARMUP = 50;
const ADMIN = { email: "held-queue-bench@example.com", password: "held queue bench password" };
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
const ms = (value: number) => value.toFixed(2);

installCleanupHooks();

async function measureRound(): Promise<number[]> {
  const dataDir = await makeTempDir("held-queue-submissions");
  const server = await forkBenchProcess({
    script: "dispatch-server.ts",
    env: await meridianServerEnv({ dataDir, admin: ADMIN }),
  });
  try {
    const { token } = (await callJson(server.url, "/api/v1/auth/login", null, ADMIN)) as { token: string };
    const project = (await callJson(server.url, "/projects", token, { name: "Held queue bench" })) as { id: string };
    // No plugin ever connects: the observatory stays offline and holds every observation.
    const observatory = (await callJson(server.url, "/observatories", token, { name: "Held queue bench" })) as { id: string };
    const times: number[] = [];
    for (let index = 0; index < SUBMISSIONS; index += 1) {
      const started = performance.now();
      await callJson(server.url, "/observations", token, { name: `Held ${index}`, projectId: project.id, observatoryId: observatory.id, targets: [target] });
      times.push(performance.now() - started);
      if (index % 5 === 4) await new Promise((resolve) => setTimeout(resolve, 3));
    }
    return times;
  } finally {
    await server.stop();
  }
}

async function main() {
  const loadAtStart = loadAverage();
  const { cores, cpuModel, node } = machineDescription();
  const rounds: number[][] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const times = await measureRound();
    rounds.push(times);
    const first = times.slice(WARMUP, WARMUP + SLICE);
    const last = times.slice(-SLICE);
    process.stdout.write(`round ${round + 1}: first ${SLICE} p50 ${ms(percentile(first, 50))} ms, last ${SLICE} p50 ${ms(percentile(last, 50))} ms\n`);
  }
  const first = rounds.flatMap((times) => times.slice(WARMUP, WARMUP + SLICE));
  const last = rounds.flatMap((times) => times.slice(-SLICE));
  const row = (label: string, values: number[]) =>
    `| ${label} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 90))} | ${ms(percentile(values, 99))} |`;
  const ratio = percentile(last, 50) / percentile(first, 50);
  const lines = [
    "# Submissions to an observatory holding its queue",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/held-queue-submissions.ts --submissions ${SUBMISSIONS} ` +
      `--rounds ${ROUNDS}\`: ${ROUNDS} rounds, each a fresh server and ${SUBMISSIONS} submissions one at a time to one offline observatory ` +
      `(a pause of 3 ms every fifth). ${cores} cores (${cpuModel}), Node ${node}. Load average at the start ${loadAtStart}, at the end ${loadAverage()}.`,
    "",
    "| Submissions (POST sent → 201 read) | p50 ms | p90 ms | p99 ms |",
    "|---|---:|---:|---:|",
    row(`peer: submissions ${WARMUP + 1} to ${WARMUP + SLICE} of each round (queue under ${WARMUP + SLICE})`, first),
    row(`the last ${SLICE} of each round (queue over ${SUBMISSIONS - SLICE})`, last),
    "",
    `The last against the first at p50: ×${ratio.toFixed(2)}.`,
    "",
  ];
  await writeResult("held-queue-submissions.md", lines.join("\n"));
  process.stdout.write(`${lines.join("\n")}\n`);
  await removeTempDirs();
}

await main();
