/**
 * Observatory connections (issue 26, point 3): the memory each connected, heartbeating observatory
 * holds in the server, and the CPU 1,000 of them cost, against a bare `ws` server that acks each
 * message (bench/bare-ws-peer.ts). Goal: both within 3x of the peer's.
 *   memory  the process's heap and external memory after two full garbage collections
 *           (`--expose-gc`, asked over IPC: bench/memory-probe.ts), before the fleet connects and
 *           once it has run a while, divided by the connections; RSS beside it
 *   cpu     the process's CPU over a window after the first minute (each connection has then
 *           written its first sighting, as in the steady state), heartbeats every 30 s, spread;
 *           and over a window of the same length before the fleet connects, idle; the goal is on the
 *           difference, what the fleet itself costs. The run fails unless every socket is still open at
 *           the window's end and its heartbeats were answered (a fleet cut off would look light)
 * Meridian runs as `pnpm start` does (server and worker, embedded PostgreSQL; bench/dispatch-server.ts);
 * PostgreSQL's own CPU is reported beside it.
 *
 *   node --import tsx bench/observatory-connections.ts [--sockets 1000] [--window 60]
 *
 * Results: bench/results/observatory-connections.md.
 */
import WebSocket from "ws";
import {
  callJson,
  cpuSeconds,
  installCleanupHooks,
  loadAverage,
  machineDescription,
  makeTempDir,
  numberOption,
  postgresCpuSeconds,
  removeTempDirs,
  sleep,
  writeResult,
} from "./lib.mjs";
import { forkBenchProcess, meridianServerEnv } from "./forked-process";
import { heartbeatsSpread } from "./heartbeats";
import type { MemoryReport } from "./memory-probe";

const SOCKETS = numberOption("sockets", 1000);
const WINDOW_SECONDS = numberOption("window", 60);
const HEARTBEAT_MS = 30_000;
const GOAL_RATIO = 3;
const ADMIN = { email: "connections-bench@example.com", password: "connections bench password" };

installCleanupHooks();

/** A process of ours, started with --expose-gc: its address once it listens, and its memory on request. */
async function forkMeasured(script: string, env: Record<string, string>) {
  const measured = await forkBenchProcess({ script, env, execArgv: ["--expose-gc"] });
  return {
    ...measured,
    memory: () => measured.ask<MemoryReport>("memory"),
    /** Meridian's server only (bench/dispatch-server.ts): resolves once no job runs and none but an email is due. */
    settle: () => measured.ask<void>("settle"),
  };
}

/** Heartbeats acked so far, over every fleet: the window counts its own, so that a fleet cut off cannot pass for a light one. */
let heartbeatsAcked = 0;

/** Connects `keys.length` plugins (or bare sockets), each acked for its hello, 50 at a time. */
async function connectFleet(url: string, keys: Array<string | null>) {
  const fleet: WebSocket[] = [];
  for (let start = 0; start < keys.length; start += 50) {
    const batch = await Promise.all(
      keys.slice(start, start + 50).map(
        (key) =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
            ws.once("error", reject);
            ws.once("open", () => ws.send(JSON.stringify({ type: "hello", id: "hello", pluginVersion: "3.8.0.0" })));
            ws.on("message", (raw) => {
              const message = JSON.parse(raw.toString()) as { id?: string; type: string };
              if (message.id === "beat" && message.type === "ack") heartbeatsAcked += 1;
              if (message.id !== "hello") return;
              if (message.type === "ack") resolve(ws);
              else reject(new Error(`hello refused: ${raw.toString()}`));
            });
          }),
      ),
    );
    fleet.push(...batch);
  }
  return fleet;
}

interface Measured {
  /** Heartbeats acked in the CPU window. */
  acked: number;
  bytesPerConnection: number;
  rssPerConnection: number;
  cpuShare: number;
  idleShare: number;
  postgresCpuShare: number | null;
}

/** Memory before and after the fleet, CPU over the window once `warmUpMs` has passed. */
async function measure(options: {
  process: Awaited<ReturnType<typeof forkMeasured>>;
  url: string;
  keys: Array<string | null>;
  warmUpMs: number;
  dataDir?: string;
}): Promise<Measured> {
  const { process: measured, keys } = options;
  const before = await measured.memory();
  // What the process spends with no connection (timers, the worker's polls): not the fleet's cost.
  const idleAtStart = cpuSeconds(measured.child.pid);
  await sleep(WINDOW_SECONDS * 1000);
  const idleShare = (cpuSeconds(measured.child.pid) - idleAtStart) / WINDOW_SECONDS;
  const fleet = await connectFleet(options.url, keys);
  const beats = heartbeatsSpread(fleet, HEARTBEAT_MS);
  await sleep(options.warmUpMs);
  const cpuAtStart = cpuSeconds(measured.child.pid);
  const postgresAtStart = options.dataDir ? postgresCpuSeconds(options.dataDir) : 0;
  const ackedAtStart = heartbeatsAcked;
  await sleep(WINDOW_SECONDS * 1000);
  const cpuShare = (cpuSeconds(measured.child.pid) - cpuAtStart) / WINDOW_SECONDS;
  const postgresCpuShare = options.dataDir ? (postgresCpuSeconds(options.dataDir) - postgresAtStart) / WINDOW_SECONDS : null;
  const acked = heartbeatsAcked - ackedAtStart;
  const open = fleet.filter((ws) => ws.readyState === WebSocket.OPEN).length;
  // Every socket heartbeats about WINDOW / 30 s times in the window; a light fleet must still be a whole, answered one.
  const expected = Math.floor((keys.length * WINDOW_SECONDS * 1000) / HEARTBEAT_MS);
  if (open < keys.length || acked < expected * 0.95)
    throw new Error(`the fleet did not hold: ${open} of ${keys.length} sockets open, ${acked} heartbeats acked of about ${expected}`);
  const after = await measured.memory();
  beats.stop();
  for (const ws of fleet) ws.close();
  const held = (report: MemoryReport) => report.heapUsed + report.external;
  return {
    bytesPerConnection: (held(after) - held(before)) / keys.length,
    rssPerConnection: (after.rss - before.rss) / keys.length,
    cpuShare,
    idleShare,
    acked,
    postgresCpuShare,
  };
}

async function measureMeridian(): Promise<Measured> {
  const dataDir = await makeTempDir("observatory-connections");
  const server = await forkMeasured("dispatch-server.ts", await meridianServerEnv({ dataDir, admin: ADMIN }));
  try {
    const { token } = (await callJson(server.url, "/api/v1/auth/login", null, ADMIN)) as { token: string };
    const keys: string[] = [];
    for (let start = 0; start < SOCKETS; start += 10)
      keys.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(10, SOCKETS - start) }, async (_, offset) => {
            const observatory = (await callJson(server.url, "/observatories", token, { name: `Fleet ${start + offset}` })) as { id: string };
            return ((await callJson(server.url, `/observatories/${observatory.id}/api-keys`, token, { name: "bench" })) as { key: string }).key;
          }),
        )),
      );
    // The creations' jobs done, so that the idle window is idle.
    await server.settle();
    // Past the first minute: each connection has written its first sighting, and writes again at most once a minute.
    return await measure({ process: server, url: `${server.url.replace(/^http/, "ws")}/ws/observatory`, keys, warmUpMs: 60_000, dataDir });
  } finally {
    await server.stop();
  }
}

async function measurePeer(): Promise<Measured> {
  const peer = await forkMeasured("bare-ws-peer.ts", {});
  try {
    return await measure({ process: peer, url: peer.url, keys: Array.from({ length: SOCKETS }, () => null), warmUpMs: 5_000 });
  } finally {
    await peer.stop();
  }
}

async function main() {
  const loadAtStart = loadAverage();
  const { cores, cpuModel, node } = machineDescription();
  const peer = await measurePeer();
  const meridian = await measureMeridian();
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const percent = (share: number) => `${(share * 100).toFixed(2)} %`;
  const memoryRatio = meridian.bytesPerConnection / peer.bytesPerConnection;
  const cpuRatio = meridian.cpuShare / peer.cpuShare;
  const fleetCpuRatio = (meridian.cpuShare - meridian.idleShare) / (peer.cpuShare - peer.idleShare);
  const verdict = (ratio: number) => `${ratio.toFixed(1)}x (goal ${GOAL_RATIO}x: ${ratio <= GOAL_RATIO ? "met" : "**not met**"})`;
  const lines = [
    "# Observatory connections",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} with \`node --import tsx bench/observatory-connections.ts --sockets ${SOCKETS} ` +
      `--window ${WINDOW_SECONDS}\`: ${SOCKETS} connections, each says hello and heartbeats every 30 s (spread); memory after two full ` +
      `garbage collections before and after, CPU over ${WINDOW_SECONDS} s (Meridian's after its first minute). ${cores} cores (${cpuModel}), ` +
      `Node ${node}. Load average at the start ${loadAtStart}, at the end ${loadAverage()}.`,
    "",
    "| Measure | Meridian | Peer: bare `ws`, acking | Meridian ÷ peer |",
    "|---|---:|---:|---:|",
    `| heap + external per connection | ${kib(meridian.bytesPerConnection)} | ${kib(peer.bytesPerConnection)} | ${verdict(memoryRatio)} |`,
    `| RSS per connection (noisy: the allocator keeps freed pages) | ${kib(meridian.rssPerConnection)} | ${kib(peer.rssPerConnection)} | ` +
      `${(meridian.rssPerConnection / peer.rssPerConnection).toFixed(1)}x |`,
    `| the process's CPU, share of a core | ${percent(meridian.cpuShare)} | ${percent(peer.cpuShare)} | ${cpuRatio.toFixed(1)}x |`,
    `| the same with no connection (before the fleet) | ${percent(meridian.idleShare)} | ${percent(peer.idleShare)} | – |`,
    `| the fleet's CPU: the difference | ${percent(meridian.cpuShare - meridian.idleShare)} | ${percent(peer.cpuShare - peer.idleShare)} | ` +
      `${verdict(fleetCpuRatio)} |`,
    `| PostgreSQL's CPU, share of a core | ${percent(meridian.postgresCpuShare ?? 0)} | – | – |`,
    `| heartbeats acked in the window (every socket open at its end) | ${meridian.acked} | ${peer.acked} | – |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  await writeResult("observatory-connections.md", lines.join("\n"));
}

try {
  await main();
} finally {
  await removeTempDirs();
}
