/**
 * Dispatch latency by stage (issue 26, point 4): from `POST /observations` to the `assign` message
 * at an idle connected observatory, and where the time goes. Goal: p99 under 25 ms.
 *   request   the POST sent → its transaction committed (the observation and its dispatch job written), split in
 *     http          the POST sent → the operation starts (the client's fetch, HTTP, the caller's credentials, the input's validation)
 *     transaction   the operation starts → its transaction committed
 *   pickup    committed → a worker starts the dispatch job (graphile-worker: NOTIFY jobs:insert)
 *   dispatch  the job started → the dispatch transaction committed (plan, move to assigned, event)
 *   (An idle observatory's submission is assigned in its own transaction, dispatch.ts `holdIdleObservatory`:
 *   its request stage holds the dispatch, and pickup and dispatch read 0.)
 *   notify    committed → a server process hears the event's NOTIFY (meridian_events)
 *   hub       heard → `assign` sent on the plugin's socket (the event read back by its id, framed, written)
 *   socket    sent → the plugin has the message
 * The server runs as `pnpm start` does, in a process of its own (bench/dispatch-server.ts), which
 * passes the marks of its dispatch trace (packages/domain/src/features/observations/dispatch-trace.ts) to this one; clocks are performance.timeOrigin + now().
 * Two peers, each alternating with Meridian: a bare `ws` echo of an `assign`-sized message (the floor a
 * socket alone costs), and the path's database work with no Meridian code on the server's own
 * PostgreSQL (bench/postgres-floor.ts: one transaction of the assigning submission's shape, its checks
 * and its writes each a batch, its NOTIFY heard), the floor this machine's round trips and flushes set at that moment.
 *
 *   node --import tsx bench/dispatch-latency.ts [--samples 300] [--rounds 3]
 *
 * Results: bench/results/dispatch-latency.md.
 */
import type { DispatchMark, DispatchStage } from "@meridian/domain/observations";
import WebSocket, { WebSocketServer } from "ws";
import { callJson, installCleanupHooks, loadAverage, machineDescription, makeTempDir, numberOption, percentile, removeTempDirs, writeResult } from "./lib.mjs";
import { forkBenchProcess, meridianServerEnv } from "./forked-process";
import { measurePostgresFloor } from "./postgres-floor";

const SAMPLES = numberOption("samples", 300);
const ROUNDS = numberOption("rounds", 3);
const WARMUP = 20;
const GOAL_P99_MS = 25;
const ADMIN = { email: "dispatch-bench@example.com", password: "dispatch bench password" };
const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
const now = () => performance.timeOrigin + performance.now();
const ms = (value: number) => value.toFixed(2);

installCleanupHooks();

type Message = Record<string, unknown>;
/** A socket whose messages can be awaited by a predicate. */
function openSocket(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ ws: WebSocket; next(predicate: (message: Message) => boolean): Promise<{ message: Message; at: number }> }>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const waiters: Array<{ predicate: (message: Message) => boolean; resolve: (value: { message: Message; at: number }) => void }> = [];
    ws.on("message", (raw) => {
      const at = now();
      const message = JSON.parse(raw.toString()) as Message;
      for (const waiter of [...waiters])
        if (waiter.predicate(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve({ message, at });
        }
    });
    ws.once("error", reject);
    ws.once("open", () => resolve({ ws, next: (predicate) => new Promise((settle) => waiters.push({ predicate, resolve: settle })) }));
  });
}

/** The server process, and the marks it has sent so far. */
async function startServer(dataDir: string) {
  const marks: DispatchMark[] = [];
  const server = await forkBenchProcess({
    script: "dispatch-server.ts",
    env: {
      ...(await meridianServerEnv({ dataDir, admin: ADMIN })),
      // The plugin here reports two moves per observation, far faster than a telescope.
      PLUGIN_MESSAGES_PER_SECOND: "1000",
    },
    onMessage: (mark) => marks.push(mark as DispatchMark),
  });
  /** Resolves once the server runs no job and has none but emails due: the previous sample's dispatch is done. */
  const settled = () => server.ask<void>("settle");
  return { ...server, marks, settled };
}

interface Sample {
  sent: number;
  received: number;
  observationId: string;
}

type Stages = ReturnType<typeof stagesOf>[number];

/** Each sample's stages, from the marks: job starts carry only the observatory, so each is matched to the sample it follows. */
function stagesOf(samples: Sample[], marks: DispatchMark[]) {
  const find = (stage: DispatchStage, predicate: (mark: DispatchMark) => boolean) => {
    const found = marks.find((mark) => mark.stage === stage && predicate(mark));
    if (!found) throw new Error(`no "${stage}" mark for a sample`);
    return found;
  };
  return samples.map((sample) => {
    const committed = find("request committed", (mark) => mark.observationId === sample.observationId);
    // Submissions go one at a time: the operation that committed it is the last to start before its commit.
    const begun = marks.findLast((mark) => mark.stage === "request started" && mark.at <= committed.at);
    if (!begun) throw new Error(`no "request started" mark for a sample`);
    const dispatched = find("dispatch committed", (mark) => mark.observationId === sample.observationId);
    // The job that assigned it is the last to start before its dispatch committed (others run when the observatory frees up);
    // assigned in the submission's own transaction, it has no job, and its pickup and dispatch take no time of their own.
    const started = marks.findLast((mark) => mark.stage === "job started" && mark.at >= committed.at && mark.at <= dispatched.at) ?? dispatched;
    const sentMark = find("assign sent", (mark) => mark.observationId === sample.observationId);
    const heard = find("event heard", (mark) => mark.eventId === sentMark.eventId);
    return {
      request: committed.at - sample.sent,
      http: begun.at - sample.sent,
      transaction: committed.at - begun.at,
      pickup: started.at - committed.at,
      dispatch: dispatched.at - started.at,
      notify: heard.at - dispatched.at,
      hub: sentMark.at - heard.at,
      socket: sample.received - sentMark.at,
      total: sample.received - sample.sent,
    };
  });
}

/** Meridian's samples and, before or after them on the same idle server's PostgreSQL, the database floor's. */
async function measureMeridian(floorFirst: boolean) {
  const dataDir = await makeTempDir("dispatch-latency");
  const server = await startServer(dataDir);
  const floor = () => measurePostgresFloor({ databaseUrl: server.databaseUrl!, samples: SAMPLES, warmup: WARMUP });
  try {
    const floorBefore = floorFirst ? await floor() : undefined;
    const { token } = (await callJson(server.url, "/api/v1/auth/login", null, ADMIN)) as { token: string };
    const project = (await callJson(server.url, "/projects", token, { name: "Dispatch bench" })) as { id: string };
    const observatory = (await callJson(server.url, "/observatories", token, { name: "Dispatch bench" })) as { id: string };
    await callJson(server.url, `/observatories/${observatory.id}`, token, { settings: { slewSeconds: 0, readoutSeconds: 0 } }, "PUT");
    const { key } = (await callJson(server.url, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" })) as { key: string };
    const plugin = await openSocket(`${server.url.replace(/^http/, "ws")}/ws/observatory`, { authorization: `Bearer ${key}` });
    let messageId = 0;
    const say = async (message: Message) => {
      const id = String(++messageId);
      const reply = plugin.next((incoming) => incoming.id === id);
      plugin.ws.send(JSON.stringify({ ...message, id }));
      const { message: answer } = await reply;
      if (answer.type !== "ack") throw new Error(`plugin message refused: ${JSON.stringify(answer)}`);
    };
    await say({ type: "hello", pluginVersion: "3.8.0.0" });
    const samples: Sample[] = [];
    for (let index = 0; index < SAMPLES + WARMUP; index += 1) {
      const assigned = plugin.next((message) => message.type === "assign");
      const sent = now();
      const created = (await callJson(server.url, "/observations", token, {
        name: `Dispatch ${index}`,
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [target],
      })) as { id: string };
      const { message, at } = await assigned;
      if ((message.observation as { id: string }).id !== created.id) throw new Error("assigned another observation");
      if (index >= WARMUP) samples.push({ sent, received: at, observationId: created.id });
      await say({ type: "observation_status", observationId: created.id, status: "in_progress" });
      await say({ type: "observation_status", observationId: created.id, status: "aborted" });
      // The observatory is idle again, and so is the server: the next sample does not share it with this one's tail.
      await server.settled();
    }
    plugin.ws.close();
    return { stages: stagesOf(samples, server.marks), floor: floorBefore ?? (await floor()) };
  } finally {
    await server.stop();
  }
}

async function measurePeer() {
  const peer = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => peer.once("listening", resolve));
  peer.on("connection", (socket) => socket.on("message", (raw) => socket.send(raw.toString())));
  const echo = await openSocket(`ws://127.0.0.1:${(peer.address() as { port: number }).port}`);
  const roundTrips: number[] = [];
  for (let index = 0; index < SAMPLES + WARMUP; index += 1) {
    const back = echo.next((message) => message.n === index);
    const sent = now();
    echo.ws.send(JSON.stringify({ type: "assign", n: index, observation: { id: `obn_${index}`, targets: [target] } }));
    const { at } = await back;
    if (index >= WARMUP) roundTrips.push(at - sent);
  }
  echo.ws.close();
  await new Promise((resolve) => peer.close(resolve));
  return roundTrips;
}

async function main() {
  const loadAtStart = loadAverage();
  const { cores, cpuModel, node } = machineDescription();
  const machine = `${cores} cores (${cpuModel}), Node ${node}`;
  const stageNames = ["request", "http", "transaction", "pickup", "dispatch", "notify", "hub", "socket", "total"] as const;
  const labels: Partial<Record<(typeof stageNames)[number], string>> = {
    http: "… of which HTTP (sent → the operation starts: request read, caller known, input valid)",
    transaction: "… of which the submission's operation (started → its transaction committed)",
    total: "**total** (POST sent → `assign` received)",
  };
  const rounds: Array<{ meridian: Stages[]; floor: number[]; peer: number[] }> = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // The order flips each round, so neither side always runs on a warmer machine.
    const peerFirst = round % 2 === 1;
    const peer = peerFirst ? await measurePeer() : undefined;
    const { stages: meridian, floor } = await measureMeridian(peerFirst);
    rounds.push({ meridian, floor, peer: peer ?? (await measurePeer()) });
    const totals = meridian.map((sample) => sample.total);
    process.stdout.write(
      `round ${round + 1}: total p50 ${ms(percentile(totals, 50))} ms, p99 ${ms(percentile(totals, 99))} ms; ` +
        `database floor p50 ${ms(percentile(floor, 50))} ms, p99 ${ms(percentile(floor, 99))} ms\n`,
    );
  }
  const all = rounds.flatMap((round) => round.meridian);
  const peer = rounds.flatMap((round) => round.peer);
  const floor = rounds.flatMap((round) => round.floor);
  const of = (name: (typeof stageNames)[number]) => all.map((sample) => sample[name]);
  const roundP99s = rounds.map((round) =>
    percentile(
      round.meridian.map((sample) => sample.total),
      99,
    ),
  );
  const p99 = percentile(of("total"), 99);
  const lines = [
    "# Dispatch latency by stage",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/dispatch-latency.ts --samples ${SAMPLES} --rounds ${ROUNDS}\`: ` +
      `${ROUNDS} rounds of ${SAMPLES} observations (after ${WARMUP} not counted), each on a fresh server, one at a time to an idle connected ` +
      `observatory, each once the server runs no job and has none but emails due; ` +
      `two peers alternate with it: a bare \`ws\` echo of an \`assign\`-sized message, and the path's database work alone on the server's ` +
      `PostgreSQL (bench/postgres-floor.ts: one transaction, a batch of 12 reads and a batch of 10 inserts, the last's NOTIFY heard). ${machine}. ` +
      `Load average at the start ${loadAtStart}, at the end ${loadAverage()}.`,
    "",
    "| Stage | p50 ms | p90 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|",
    ...stageNames.map((name) => {
      const values = of(name);
      const label = labels[name] ?? name;
      return `| ${label} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 90))} | ${ms(percentile(values, 99))} | ${ms(Math.max(...values))} |`;
    }),
    `| peer: bare \`ws\` round trip | ${ms(percentile(peer, 50))} | ${ms(percentile(peer, 90))} | ${ms(percentile(peer, 99))} | ${ms(Math.max(...peer))} |`,
    `| peer: the database floor (one transaction: 12 reads, 10 inserts, a NOTIFY) | ${ms(percentile(floor, 50))} | ${ms(percentile(floor, 90))} | ` +
      `${ms(percentile(floor, 99))} | ${ms(Math.max(...floor))} |`,
    "",
    `p99 of each round: ${roundP99s.map((value) => `${ms(value)} ms`).join(", ")}. ` +
      `Goal (issue 26, point 4): p99 under ${GOAL_P99_MS} ms: **${p99 < GOAL_P99_MS ? "met" : "not met"}** (${ms(p99)} ms over all ${all.length} samples).`,
    "",
  ];
  await writeResult("dispatch-latency.md", lines.join("\n"));
  process.stdout.write(`${lines.join("\n")}\n`);
  await removeTempDirs();
}

await main();
