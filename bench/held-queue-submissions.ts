/**
 * Submissions to an observatory that holds its queue, as that queue grows: does each submission
 * cost more the more observations already wait? Three ways an observatory holds everything:
 *   offline   no plugin connected (the daytime of most of a network);
 *   busy      its plugin observes one observation the whole run (the night of a busy one);
 *   daylight  its plugin is connected and idle, and the sun is up there (the daytime of the rest).
 * Each submission queues a dispatch job, which until 2026-11-28 read and planned up to
 * DISPATCH_WINDOW (500) waiting observations before finding nothing it could assign; now the
 * observatory's document (offline), the pending read's own condition (busy) or the sun's altitude
 * there (daylight: only observations that bypass darkness are read) answers first.
 * The peer is the same round's early submissions, on a queue still short: a flat cost reads ×1.00.
 *
 *   node --import tsx bench/held-queue-submissions.ts [--submissions 1500] [--rounds 1]
 *
 * The server runs as `pnpm start` does (bench/dispatch-server.ts, server and worker in one
 * process), one fresh server a round and way; submissions go one at a time, with a short pause
 * every fifth so that the jobs they queued run beside the next ones, as they would. Results:
 * bench/results/held-queue-submissions.md.
 */
import {
  callJson,
  installCleanupHooks,
  loadAverage,
  machineDescription,
  makeTempDir,
  numberOption,
  percentile,
  removeTempDirs,
  sleep,
  writeResult,
} from "./lib.mjs";
import WebSocket from "ws";
import { forkBenchProcess, meridianServerEnv } from "./forked-process";

const SUBMISSIONS = numberOption("submissions", 1500);
const ROUNDS = numberOption("rounds", 1);
const WAYS = ["offline", "busy", "daylight"] as const;
type Way = (typeof WAYS)[number];
/** The first and the last this many submissions of a round are compared, after the first WARMUP. */
const SLICE = 200;
const WARMUP = 50;
const ADMIN = { email: "held-queue-bench@example.com", password: "held queue bench password" };
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
const ms = (value: number) => value.toFixed(2);

installCleanupHooks();

/** Connects a plugin to the observatory and says hello; `heard` waits for a message it was sent. */
async function connectPlugin(url: string, token: string, observatory: { id: string }) {
  const { key } = (await callJson(url, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" })) as { key: string };
  const plugin = new WebSocket(`${url.replace(/^http/, "ws")}/ws/observatory`, { headers: { authorization: `Bearer ${key}` } });
  const messages: Array<Record<string, unknown>> = [];
  plugin.on("message", (raw) => messages.push(JSON.parse(raw.toString()) as Record<string, unknown>));
  await new Promise((resolve, reject) => plugin.once("open", resolve).once("error", reject));
  const heard = async (predicate: (message: Record<string, unknown>) => boolean) => {
    while (!messages.some(predicate)) await sleep(5);
  };
  plugin.send(JSON.stringify({ id: "hello", type: "hello", pluginVersion: "3.8.0.0" }));
  await heard((message) => message.id === "hello");
  return { plugin, heard };
}

/** Has the connected plugin start an observation it never finishes: every later one waits. */
async function keepBusy(url: string, token: string, project: { id: string }, observatory: { id: string }) {
  const { plugin, heard } = await connectPlugin(url, token, observatory);
  const first = (await callJson(url, "/observations", token, {
    name: "Under way",
    projectId: project.id,
    observatoryId: observatory.id,
    targets: [target],
  })) as {
    id: string;
  };
  await heard((message) => message.type === "assign");
  plugin.send(JSON.stringify({ id: "started", type: "observation_status", observationId: first.id, status: "in_progress" }));
  await heard((message) => message.id === "started");
  return plugin;
}

/** Puts the observatory on the equator where the sun is highest now (about 70° up or more), with its plugin connected and idle. */
async function keepInDaylight(url: string, token: string, observatory: { id: string }) {
  const now = new Date();
  const utcHours = now.getUTCHours() + now.getUTCMinutes() / 60;
  const longitude = (((12 - utcHours) * 15 + 540) % 360) - 180;
  await callJson(url, `/observatories/${observatory.id}`, token, { location: { latitude: 0, longitude, elevation: 0 } }, "PUT");
  return (await connectPlugin(url, token, observatory)).plugin;
}

async function measureRound(way: Way): Promise<number[]> {
  const dataDir = await makeTempDir("held-queue-submissions");
  const server = await forkBenchProcess({ script: "dispatch-server.ts", env: await meridianServerEnv({ dataDir, admin: ADMIN }) });
  try {
    const { token } = (await callJson(server.url, "/api/v1/auth/login", null, ADMIN)) as { token: string };
    const project = (await callJson(server.url, "/projects", token, { name: "Held queue bench" })) as { id: string };
    const observatory = (await callJson(server.url, "/observatories", token, { name: "Held queue bench" })) as { id: string };
    const plugin =
      way === "busy"
        ? await keepBusy(server.url, token, project, observatory)
        : way === "daylight"
          ? await keepInDaylight(server.url, token, observatory)
          : undefined;
    const times: number[] = [];
    for (let index = 0; index < SUBMISSIONS; index += 1) {
      const started = performance.now();
      await callJson(server.url, "/observations", token, { name: `Held ${index}`, projectId: project.id, observatoryId: observatory.id, targets: [target] });
      times.push(performance.now() - started);
      if (index % 5 === 4) await sleep(3);
    }
    plugin?.close();
    return times;
  } finally {
    await server.stop();
  }
}

async function main() {
  const loadAtStart = loadAverage();
  const { cores, cpuModel, node } = machineDescription();
  const byWay = new Map<Way, number[][]>(WAYS.map((way) => [way, []]));
  for (let round = 0; round < ROUNDS; round += 1)
    for (const way of WAYS) {
      const times = await measureRound(way);
      byWay.get(way)!.push(times);
      const first = times.slice(WARMUP, WARMUP + SLICE);
      const last = times.slice(-SLICE);
      process.stdout.write(
        `${way}, round ${round + 1}: submissions ${WARMUP + 1} to ${WARMUP + SLICE} p50 ${ms(percentile(first, 50))} ms, ` +
          `last ${SLICE} p50 ${ms(percentile(last, 50))} ms\n`,
      );
    }
  const row = (label: string, values: number[]) =>
    `| ${label} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 90))} | ${ms(percentile(values, 99))} |`;
  const lines = [
    "# Submissions to an observatory holding its queue",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/held-queue-submissions.ts --submissions ${SUBMISSIONS} ` +
      `--rounds ${ROUNDS}\`: ${ROUNDS} round(s) of each way, each a fresh server and ${SUBMISSIONS} submissions one at a time to one observatory, ` +
      `offline (no plugin), busy (its plugin observing one observation throughout) or in daylight (its plugin connected and idle, the sun about ` +
      `70° up there; none of the observations bypasses darkness); a pause of 3 ms every fifth. ` +
      `${cores} cores (${cpuModel}), Node ${node}. Load average at the start ${loadAtStart}, at the end ${loadAverage()}.`,
    "",
    "| Submissions (POST sent → 201 read) | p50 ms | p90 ms | p99 ms |",
    "|---|---:|---:|---:|",
    ...WAYS.flatMap((way) => {
      const rounds = byWay.get(way)!;
      return [
        row(
          `${way}, peer: submissions ${WARMUP + 1} to ${WARMUP + SLICE} (queue under ${WARMUP + SLICE})`,
          rounds.flatMap((times) => times.slice(WARMUP, WARMUP + SLICE)),
        ),
        row(
          `${way}: the last ${SLICE} (queue over ${SUBMISSIONS - SLICE})`,
          rounds.flatMap((times) => times.slice(-SLICE)),
        ),
      ];
    }),
    "",
    ...WAYS.map((way) => {
      const rounds = byWay.get(way)!;
      const first = percentile(
        rounds.flatMap((times) => times.slice(WARMUP, WARMUP + SLICE)),
        50,
      );
      const last = percentile(
        rounds.flatMap((times) => times.slice(-SLICE)),
        50,
      );
      return `${way}: the last against the peer at p50, ×${(last / first).toFixed(2)}.`;
    }),
    "",
  ];
  await writeResult("held-queue-submissions.md", lines.join("\n"));
  process.stdout.write(`${lines.join("\n")}\n`);
  await removeTempDirs();
}

await main();
