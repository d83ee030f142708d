/**
 * Observations on a live network, each measured against a bare `ws` peer in the same run:
 *   dispatch   POST /observations → the `assign` message at an idle connected observatory (p50, p99);
 *              peer: a bare ws round trip.
 *   broadcast  1,000 user sockets on /ws, one status change: time until the last one hears it;
 *              peer: a bare ws server sending the same JSON to 1,000 sockets.
 *   plugins    1,000 observatories connected to one server process, heartbeats every 30 s: RSS per
 *              connection and CPU over the second minute (the peer's: over 30 s); peer: 1,000 sockets
 *              on a bare ws server that acks.
 *   list       GET /observations for a user with 10,000 observations, first and fiftieth page (p99 of
 *              200); peer: the same page read with plain SQL over postgres.js.
 * The server is a process of its own (`apps/server/src/main.ts`, server and worker); PostgreSQL and
 * S3 run in this process, which seeds the database directly where the API would take minutes.
 *   node --import tsx bench/observations-network.ts
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { newId, observationsCollection, observatoriesCollection, observatoryKeysCollection } from "@meridian/db";
import { hashSecret } from "@meridian/domain/auth";
import { OBSERVATORY_KEY_PREFIX } from "@meridian/domain/observatories";
import { type Runtime } from "@meridian/domain/platform";
import WebSocket, { WebSocketServer } from "ws";
import { heartbeatsSpread } from "./heartbeats";
import { percentile } from "./lib.mjs";
import { startBenchRuntime } from "./runtime";
import { freePort } from "../scripts/free-port";

const repoRoot = path.resolve(import.meta.dirname, "..");
const SAMPLES = 200;
const SOCKETS = 1000;
const OBSERVATIONS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const spread = (values: number[]) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
const row = (measure: string, meridian: string, peer: string) => `| ${measure} | ${meridian} | ${peer} |`;

const procStatus = async (pid: number, field: string) =>
  Number((await fs.readFile(`/proc/${pid}/status`, "utf8")).match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))![1]) * 1024;
/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
async function cpuSeconds(pid: number) {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const children = new Set<ChildProcess>();
let runtime: Runtime | undefined;
const tempDirs: string[] = [];

async function spawnNode(args: string[], env: Record<string, string>, ready: RegExp) {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  while (!ready.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${args.join(" ")} did not start:\n${output}`);
    await sleep(20);
  }
  return child;
}

async function json<T>(base: string, pathname: string, token: string | null, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${pathname}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A socket whose messages can be awaited by a predicate. */
function openSocket(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ ws: WebSocket; next(predicate: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> }>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const waiters: Array<{ predicate: (message: Record<string, unknown>) => boolean; resolve: (message: Record<string, unknown>) => void }> = [];
    ws.on("message", (raw) => {
      const message = JSON.parse(raw.toString()) as Record<string, unknown>;
      for (const waiter of [...waiters])
        if (waiter.predicate(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
    });
    ws.once("error", reject);
    ws.once("open", () => resolve({ ws, next: (predicate) => new Promise((resolveMessage) => waiters.push({ predicate, resolve: resolveMessage })) }));
  });
}

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };

async function main() {
  const loadAtStart = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-bench-observations-"));
  tempDirs.push(dataDir);
  runtime = await startBenchRuntime(dataDir);
  const { deps } = runtime;
  const serverDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-bench-server-"));
  tempDirs.push(serverDir);
  const port = await freePort();
  const admin = { email: "bench-admin@example.com", password: "bench admin password" };
  const server = await spawnNode(
    ["--import", "tsx", "apps/server/src/main.ts"],
    {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      // The dispatch measure's plugin finishes an observation every few tens of milliseconds, far
      // faster than a telescope: above the default per-connection rate.
      PLUGIN_MESSAGES_PER_SECOND: "1000",
      // The broadcast measure's sockets are all one user's: above the default per-user cap.
      WS_CONNECTIONS_PER_USER: String(SOCKETS),
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: serverDir,
      DATABASE_URL: runtime.databaseUrl,
      S3_ENDPOINT: deps.storage.endpoint,
      S3_BUCKET: deps.storage.bucket,
      S3_ACCESS_KEY_ID: deps.storage.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: deps.storage.credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: "true",
      SECRETS_KEY: "bench secrets key",
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      DATABASE_POOL_SIZE: "20",
    },
    /listening on/,
  );
  const base = `http://127.0.0.1:${port}`;
  const wsBase = base.replace(/^http/, "ws");
  const { token, user } = await json<{ token: string; user: { id: string } }>(base, "/api/v1/auth/login", null, admin);
  const project = await json<{ id: string }>(base, "/projects", token, { name: "Bench" });
  const newObservatory = async (name: string) => {
    const observatory = await json<{ id: string }>(base, "/observatories", token, { name });
    const { key } = await json<{ key: string }>(base, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" });
    return { id: observatory.id, key };
  };

  // 1. 1,000 connected observatories with heartbeats, first, on a server whose heap nothing else has grown yet.
  const keys: string[] = [];
  // Seeded straight into the database, so the server's memory holds nothing of their creation.
  await deps.db.transaction(async (tx) => {
    for (let index = 0; index < SOCKETS; index += 1) {
      const observatory = await observatoriesCollection.insert(tx, {
        name: `Fleet ${index}`,
        owner: { kind: "user", id: user.id },
        location: null,
        dispatchEnabled: true,
        connection: { online: false, pluginVersion: null, lastSeenAt: null },
      });
      const key = `${OBSERVATORY_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
      await observatoryKeysCollection.insert(tx, {
        observatoryId: observatory.id,
        name: "bench",
        keyHash: hashSecret(key),
        prefix: key.slice(0, 10),
        createdBy: user.id,
        lastUsedAt: null,
        revokedAt: null,
      });
      keys.push(key);
    }
  });
  await sleep(5000);
  const rssBefore = await procStatus(server.pid!, "VmRSS");
  const fleet: WebSocket[] = [];
  for (let start = 0; start < keys.length; start += 50) {
    const batch = await Promise.all(
      keys.slice(start, start + 50).map(async (key) => {
        const socket = await openSocket(`${wsBase}/ws/observatory`, { authorization: `Bearer ${key}` });
        const acked = socket.next((message) => message.id === "hello");
        socket.ws.send(JSON.stringify({ type: "hello", id: "hello", pluginVersion: "3.8.0.0" }));
        await acked;
        return socket.ws;
      }),
    );
    fleet.push(...batch);
  }
  const heartbeats = heartbeatsSpread(fleet);
  // Past the first minute, then a whole minute: a connection writes its sighting at most once a
  // minute, so the window holds one write per connection, as the steady state does.
  await sleep(60_000);
  const cpuStart = await cpuSeconds(server.pid!);
  await sleep(60_000);
  const cpuMeridian = ((await cpuSeconds(server.pid!)) - cpuStart) / 60;
  const rssAfter = await procStatus(server.pid!, "VmRSS");
  heartbeats.stop();
  for (const socket of fleet) socket.close();

  const peerRss = await bareFleet();

  // 2. Dispatch latency.
  const scope = await newObservatory("Dispatch bench");
  const plugin = await openSocket(`${wsBase}/ws/observatory`, { authorization: `Bearer ${scope.key}` });
  let messageId = 0;
  const say = async (message: Record<string, unknown>) => {
    const id = String(++messageId);
    const reply = plugin.next((incoming) => incoming.id === id);
    plugin.ws.send(JSON.stringify({ ...message, id }));
    const answer = await reply;
    if (answer.type !== "ack") throw new Error(`plugin message refused: ${JSON.stringify(answer)}`);
  };
  await say({ type: "hello", pluginVersion: "3.8.0.0" });
  const dispatch: number[] = [];
  for (let index = 0; index < SAMPLES + 10; index += 1) {
    const started = performance.now();
    const assigned = plugin.next((message) => message.type === "assign");
    const created = await json<{ id: string }>(base, "/observations", token, {
      name: `Dispatch ${index}`,
      projectId: project.id,
      observatoryId: scope.id,
      targets: [target],
    });
    const message = (await assigned) as { observation: { id: string } };
    if (index >= 10) dispatch.push(performance.now() - started);
    if (message.observation.id !== created.id) throw new Error("assigned another observation");
    await say({ type: "observation_status", observationId: created.id, status: "in_progress" });
    await say({ type: "observation_status", observationId: created.id, status: "aborted" });
  }
  plugin.ws.close();

  const peerWss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => peerWss.once("listening", resolve));
  peerWss.on("connection", (socket) => socket.on("message", (raw) => socket.send(raw.toString())));
  const peerPort = (peerWss.address() as net.AddressInfo).port;
  const echo = await openSocket(`ws://127.0.0.1:${peerPort}`);
  const roundTrips: number[] = [];
  for (let index = 0; index < SAMPLES + 10; index += 1) {
    const started = performance.now();
    const back = echo.next((message) => message.n === index);
    echo.ws.send(JSON.stringify({ type: "assign", n: index, observation: { id: `obn_${index}`, targets: [target] } }));
    await back;
    if (index >= 10) roundTrips.push(performance.now() - started);
  }
  echo.ws.close();

  // 3. One status change to 1,000 user sockets.
  const watched = await json<{ id: string }>(base, "/observations", token, {
    name: "Watched",
    projectId: project.id,
    observatoryId: (await newObservatory("Idle")).id,
    targets: [target],
  });
  const users = await Promise.all(Array.from({ length: SOCKETS }, () => openSocket(`${wsBase}/ws`, { authorization: `Bearer ${token}` })));
  const heard = users.map((socket) =>
    socket.next(
      (message) =>
        message.type === "observation.status_changed" &&
        (message.data as { id: string }).id === watched.id &&
        (message.data as { status: string }).status === "paused",
    ),
  );
  const broadcastStarted = performance.now();
  await json(base, `/observations/${watched.id}/status`, token, { status: "paused" });
  await Promise.all(heard);
  const broadcastMs = performance.now() - broadcastStarted;
  for (const socket of users) socket.ws.close();

  const peerUsers = await Promise.all(Array.from({ length: SOCKETS }, () => openSocket(`ws://127.0.0.1:${peerPort}`)));
  const peerHeard = peerUsers.map((socket) => socket.next((message) => message.type === "observation.status_changed"));
  const peerBroadcastStarted = performance.now();
  const payload = JSON.stringify({
    type: "observation.status_changed",
    data: { id: watched.id, status: "paused", previousStatus: "pending", at: new Date().toISOString() },
  });
  for (const client of peerWss.clients) client.send(payload);
  await Promise.all(peerHeard);
  const peerBroadcastMs = performance.now() - peerBroadcastStarted;
  for (const socket of peerUsers) socket.ws.close();

  // 4. GET /observations for a user with 10,000 observations.
  const ownerId = user.id;
  await deps.db.transaction(async (tx) => {
    for (let start = 0; start < OBSERVATIONS; start += 500) {
      const rows = Array.from({ length: Math.min(500, OBSERVATIONS - start) }, (_, offset) => {
        const now = new Date(Date.now() - (OBSERVATIONS - start - offset) * 1000).toISOString();
        const doc = {
          name: `Listed ${start + offset}`,
          projectId: project.id,
          observatoryId: scope.id,
          ownerId,
          type: "flexible" as const,
          priority: 5,
          targets: [{ ...target, epoch: "J2000" }],
          constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" as const },
          fixedTimeStart: null,
          fixedTimeEnd: null,
          bypassDarkness: false,
          notifications: { email: false, push: false, states: [] },
          status: "completed" as const,
          statusReason: null,
          statusChangedAt: now,
          isMonitoring: false,
          staleReportedAt: null,
        };
        return { id: newId("obn"), doc, ...observationsCollection.keys(doc) };
      });
      await tx.insert(observationsCollection.table).values(rows as never);
    }
  });
  const timed = async (run: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let index = 0; index < SAMPLES + 10; index += 1) {
      const started = performance.now();
      await run();
      if (index >= 10) times.push(performance.now() - started);
    }
    return times;
  };
  let cursor: string | null = null;
  for (let page = 1; page < 50; page += 1)
    cursor = (await json<{ nextCursor: string | null }>(base, `/observations?limit=50${cursor ? `&cursor=${cursor}` : ""}`, token)).nextCursor;
  const apiFirst = await timed(() => json(base, "/observations?limit=50", token));
  const apiFiftieth = await timed(() => json(base, `/observations?limit=50&cursor=${cursor}`, token));
  const sqlFirst = await timed(() => deps.sql`select id, doc, created_at, updated_at from observations where owner_id = ${ownerId} order by id desc limit 50`);
  const sqlFiftieth = await timed(
    () => deps.sql`select id, doc, created_at, updated_at from observations where owner_id = ${ownerId} and id < ${cursor!} order by id desc limit 50`,
  );

  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  await new Promise<void>((resolve) => peerWss.close(() => resolve()));

  const text = [
    "# Observations on a live network",
    "",
    `\`node --import tsx bench/observations-network.ts\`, run on ${new Date().toISOString().slice(0, 10)}`,
    `(${os.cpus().length} cores, ${os.cpus()[0]?.model?.trim()}, Node ${process.version}; load average at start ${loadAtStart}, at the end ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(" / ")}).`,
    "One Meridian process (server and worker) over PostgreSQL and S3 in the benchmark's process; peers are bare `ws` servers.",
    "",
    "| Measure | Meridian | Peer |",
    "|---|---:|---:|",
    row(
      `dispatch: POST /observations → \`assign\` at the connected plugin, p50 / p99 (${SAMPLES})`,
      spread(dispatch),
      `bare ws round trip ${spread(roundTrips)}`,
    ),
    `| one status change to ${SOCKETS} user sockets: until the last hears it | ${ms(broadcastMs)} | bare ws broadcast ${ms(peerBroadcastMs)} |`,
    row(
      `${SOCKETS} connected observatories (hello, heartbeats every 30 s): RSS per connection`,
      `${kib((rssAfter - rssBefore) / SOCKETS)} (${mib(rssBefore)} → ${mib(rssAfter)})`,
      kib(peerRss.perConnection),
    ),
    row(
      "the same: CPU of the server process over the second minute (peer: 30 s)",
      `${(cpuMeridian * 100).toFixed(1)} % of a core`,
      `${(peerRss.cpu * 100).toFixed(1)} %`,
    ),
    row(
      `GET /observations, ${OBSERVATIONS.toLocaleString("en-US")} observations, first page, p50 / p99 (${SAMPLES})`,
      spread(apiFirst),
      `SQL ${spread(sqlFirst)}`,
    ),
    row("the same, fiftieth page (cursor)", spread(apiFiftieth), `SQL ${spread(sqlFiftieth)}`),
    "",
  ].join("\n");
  await fs.mkdir(path.join(repoRoot, "bench", "results"), { recursive: true });
  await fs.writeFile(path.join(repoRoot, "bench", "results", "observations-network.md"), text);
  console.log(text);
}

/** A heartbeat from each socket every 30 s, spread over the 30 s as a fleet's would be. */
/** The peer of the fleet: 1,000 sockets on a bare ws server process that acks each message. */
async function bareFleet() {
  const script = `
    const { WebSocketServer } = require("ws");
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    wss.on("connection", (socket) => socket.on("message", (raw) => {
      socket.send(JSON.stringify({ type: "ack", id: JSON.parse(raw).id }));
    }));
    wss.on("listening", () => console.log("peer port " + wss.address().port));`;
  let output = "";
  const child = spawn(process.execPath, ["-e", script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, NODE_PATH: path.join(repoRoot, "node_modules") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  while (!/peer port (\d+)/.test(output)) {
    if (child.exitCode !== null) throw new Error(`peer exited: ${output}`);
    await sleep(20);
  }
  const port = Number(/peer port (\d+)/.exec(output)![1]);
  await sleep(500);
  const before = await procStatus(child.pid!, "VmRSS");
  const sockets: WebSocket[] = [];
  for (let start = 0; start < SOCKETS; start += 50)
    sockets.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, SOCKETS - start) }, async () => {
          const socket = await openSocket(`ws://127.0.0.1:${port}`);
          const acked = socket.next((message) => message.id === "hello");
          socket.ws.send(JSON.stringify({ type: "hello", id: "hello" }));
          await acked;
          return socket.ws;
        }),
      )),
    );
  const timers = heartbeatsSpread(sockets);
  await sleep(3000);
  const cpuStart = await cpuSeconds(child.pid!);
  await sleep(30_000);
  const cpu = ((await cpuSeconds(child.pid!)) - cpuStart) / 30;
  const after = await procStatus(child.pid!, "VmRSS");
  timers.stop();
  for (const socket of sockets) socket.close();
  child.kill();
  return { perConnection: (after - before) / SOCKETS, cpu };
}

try {
  await main();
} finally {
  for (const child of children) child.kill("SIGKILL");
  await runtime?.stop().catch(() => undefined);
  for (const dir of tempDirs) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
