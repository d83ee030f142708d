import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { ObservatorySimulator } from "@meridian/simulator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../support/until";
import { openWebSocket, type OpenClient } from "../support/ws-client";

/**
 * Issue 26's topology check on `pnpm cluster`: OBSERVATORIES simulated observatories and as many
 * user WebSocket clients through nginx, observations submitted through both servers, then one
 * server process killed (-9), then one worker. Every observatory must reconnect within 10 s, no
 * observation may be assigned twice or lost, every status change must reach every reader that was
 * connected when it happened, every job must finish once, and a server started again must take
 * traffic. Its figures go to bench/results/topology.md.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const OBSERVATORIES = Number(process.env.TOPOLOGY_OBSERVATORIES ?? 200);
const READERS = Number(process.env.TOPOLOGY_READERS ?? 200);
const RECONNECT_LIMIT_MS = 10_000;

interface ClusterState {
  address: string;
  env: Record<string, string>;
  processes: Array<{ name: string; role: "server" | "worker"; pid: number; port?: number }>;
}

let cluster: ChildProcess;
let state: ClusterState;
let output = "";
let token = "";
let projectId = "";
const simulators: ObservatorySimulator[] = [];
const extraProcesses: ChildProcess[] = [];
const figures: Array<[string, string]> = [];

/** A reader: a user socket that connects again when it is cut, remembering each status it heard and since when it has been listening. */
interface Reader {
  client?: OpenClient;
  heard: Map<string, Set<string>>;
  /** When each of its connections opened and, for all but the last, closed. */
  spans: Array<{ from: number; to?: number }>;
  stopped: boolean;
}
const readers: Reader[] = [];

async function call<T>(pathname: string, init: { method?: string; json?: unknown } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${state.address}${pathname}`, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.json === undefined ? {} : { "content-type": "application/json" }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await response.text();
    // Reads may be retried when nginx met a server dying mid-request; writes are sent once.
    if (response.status === 502 && (init.method ?? "GET") === "GET" && init.json === undefined && attempt < 5) continue;
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
    return { body: (text ? JSON.parse(text) : null) as T, servedBy: response.headers.get("x-served-by") };
  }
}

async function inBatches<T>(items: T[], size: number, work: (item: T, index: number) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += size)
    await Promise.all(items.slice(start, start + size).map((item, offset) => work(item, start + offset)));
}

function openReader(reader: Reader) {
  if (reader.stopped) return;
  void openWebSocket(`${state.address.replace("http", "ws")}/ws`, { authorization: `Bearer ${token}` })
    .then((client) => {
      reader.client = client;
      reader.spans.push({ from: Date.now() });
      const listen = () => {
        for (const message of client.messages.splice(0)) {
          if (message.type !== "observation.status_changed") continue;
          const data = message.data as { id: string; status: string };
          if (!reader.heard.has(data.id)) reader.heard.set(data.id, new Set());
          reader.heard.get(data.id)!.add(data.status);
        }
      };
      client.ws.on("message", listen);
      client.ws.on("close", () => {
        reader.spans.at(-1)!.to = Date.now();
        setTimeout(() => openReader(reader), 200 + Math.random() * 300);
      });
    })
    .catch(() => setTimeout(() => openReader(reader), 500));
}

async function submitObservations(label: string) {
  const ids: string[] = [];
  await inBatches(simulators, 20, async (_simulator, index) => {
    const observatoryId = observatoryIds[index]!;
    const { body } = await call<{ id: string }>("/observations", {
      json: {
        name: `${label} ${index}`,
        projectId,
        observatoryId,
        targets: [{ name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "L", exposureSeconds: 2, count: 1, binning: 1 }] }],
      },
    });
    ids.push(body.id);
  });
  return ids;
}

/** Until no observation of the project is left unfinished; on timeout, says which are stuck where, with their history and their simulator's last lines. */
async function allFinished(what: string) {
  let last: Array<{ id: string; status: string; observatoryId: string }> = [];
  await until(
    what,
    async () => {
      last = await unfinished();
      return last.length === 0 ? true : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 500 },
  ).catch(async (error: Error) => {
    const counts = new Map<string, number>();
    for (const item of last) counts.set(item.status, (counts.get(item.status) ?? 0) + 1);
    const byStatus = [...counts].map(([status, count]) => `${status}: ${count}`);
    const stuck = await Promise.all(
      last.slice(0, 5).map(async (item) => {
        const history = await call<{ items: Array<{ to: string; at: string }> }>(`/observations/${item.id}/history`)
          .then(({ body }) => body.items.map((entry) => `${entry.to} ${entry.at.slice(11, 23)}`).join(", "))
          .catch((failure: Error) => `history unreadable: ${failure.message}`);
        const simulator = simulators[observatoryIds.indexOf(item.observatoryId)];
        const lines = simulator ? (recentLines.get(simulator) ?? []) : ["(no simulator of this observatory)"];
        return `${item.id} (${item.status}; ${history}), its simulator:\n    ${lines.join("\n    ")}`;
      }),
    );
    throw new Error(`${error.message}; still unfinished: ${byStatus.join(", ")}:\n  ${stuck.join("\n  ")}`);
  });
}

async function unfinished() {
  const { body } = await call<{ items: Array<{ id: string; status: string; observatoryId: string }> }>(
    `/observations?projectId=${projectId}&status=pending,assigned,in_progress,acquisition_complete&limit=200`,
  );
  return body.items;
}

const observatoryIds: string[] = [];
const reconnectTimes: number[] = [];
/** Why the observatories' connection attempts failed, and how often (the simulator's own words, ids left out). */
const failedAttempts = new Map<string, number>();
/** Each observatory's last lines from its simulator, to say where one that never came back (or its observation) got stuck. */
const recentLines = new Map<ObservatorySimulator, string[]>();
const simulatorLog = (simulator: () => ObservatorySimulator) => (line: string) => {
  const lines = recentLines.get(simulator()) ?? [];
  recentLines.set(simulator(), [...lines.slice(-11), `${new Date().toISOString().slice(11, 23)} ${line}`]);
  if (!line.startsWith("could not connect")) return;
  const reason = line.replace(/\d+/g, "#");
  failedAttempts.set(reason, (failedAttempts.get(reason) ?? 0) + 1);
};

/**
 * Every reader is one user's socket, as if one person had a page open in each of READERS tabs:
 * above the per-user cap a process allows by default (WS_CONNECTIONS_PER_USER, 20).
 */
const clusterEnv = { ...process.env, WS_CONNECTIONS_PER_USER: String(READERS) };

beforeAll(async () => {
  // TOPOLOGY_KEEP=1 keeps the cluster's folder (every process's log) for a look afterwards.
  const keep = process.env.TOPOLOGY_KEEP === "1" ? ["--keep"] : [];
  cluster = spawn(process.execPath, ["--import", "tsx", "scripts/cluster.ts", ...keep], { cwd: ROOT, env: clusterEnv, stdio: ["ignore", "pipe", "pipe"] });
  cluster.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  cluster.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const folder = await until(
    "the cluster to start",
    async () => {
      if (cluster.exitCode !== null) throw new Error(`the cluster script ended:\n${output}`);
      return /logs in (\S+);/.exec(output)?.[1];
    },
    { timeoutMs: 300_000, intervalMs: 200 },
  );
  state = JSON.parse(await fs.readFile(path.join(folder, "cluster.json"), "utf8")) as ClusterState;

  token = (
    await call<{ token: string }>("/api/v1/auth/signup", { json: { email: "topology@example.com", password: "topology password", name: "Tess Topology" } })
  ).body.token;
  projectId = (await call<{ id: string }>("/projects", { json: { name: "Topology" } })).body.id;
  await inBatches(
    Array.from({ length: OBSERVATORIES }, (_, index) => index),
    20,
    async (index) => {
      const observatory = (await call<{ id: string }>("/observatories", { json: { name: `Dome ${index}` } })).body;
      const { key } = (await call<{ key: string }>(`/observatories/${observatory.id}/api-keys`, { json: { name: "plugin" } })).body;
      observatoryIds[index] = observatory.id;
      const simulator: ObservatorySimulator = new ObservatorySimulator({
        url: state.address,
        key,
        reconnect: true,
        speed: 2,
        imageBytes: 4096,
        log: simulatorLog(() => simulator),
      });
      simulators[index] = simulator;
    },
  );
  await inBatches(simulators, 25, (simulator) => simulator.connect());
  for (let index = 0; index < READERS; index += 1) {
    const reader: Reader = { heard: new Map(), spans: [], stopped: false };
    readers.push(reader);
    openReader(reader);
  }
  await until("every reader to connect", async () => readers.every((reader) => reader.spans.length > 0), { timeoutMs: 60_000 });
}, 600_000);

afterAll(async () => {
  for (const reader of readers) {
    reader.stopped = true;
    await reader.client?.close().catch(() => undefined);
  }
  for (const simulator of simulators) await simulator?.close().catch(() => undefined);
  for (const child of extraProcesses) child.kill("SIGTERM");
  if (cluster && cluster.exitCode === null) {
    cluster.kill("SIGINT");
    await until("the cluster to stop", async () => cluster.exitCode !== null, { timeoutMs: 90_000 }).catch(() => cluster.kill("SIGKILL"));
  }
  if (figures.length > 0) {
    const table = ["| Measure | Value |", "|---|---:|", ...figures.map(([name, value]) => `| ${name} | ${value} |`)].join("\n");
    const setup = `nginx, 2 servers, 2 workers, PostgreSQL 15, ${OBSERVATORIES} observatories, ${READERS} user sockets`;
    const text = `# Cluster topology check\n\n\`pnpm test:topology\`, run on ${new Date().toISOString().slice(0, 10)}: ${setup}.\n\n${table}\n`;
    await fs.writeFile(path.join(ROOT, "bench/results/topology.md"), text);
    console.log(text);
  }
}, 180_000);

describe("the cluster loses a server and a worker under load", () => {
  it("keeps every observation, every observatory and every reader", async () => {
    // Warm: a first round through both servers.
    const started = Date.now();
    const warm = await submitObservations("Warm");
    await allFinished("the warm round to finish");
    figures.push(["first round: observations submitted and completed", `${warm.length} in ${((Date.now() - started) / 1000).toFixed(1)} s`]);

    // A server dies (-9) while a round is under way.
    const lost = state.processes.find((part) => part.name === "server-1")!;
    const round2 = await submitObservations("Server lost");
    const killedAt = Date.now();
    const cut = new Set<ObservatorySimulator>();
    const back = new Set<ObservatorySimulator>();
    for (const simulator of simulators) {
      simulator.once("close", () => cut.add(simulator));
      simulator.once("reconnected", () => {
        back.add(simulator);
        reconnectTimes.push(Date.now() - killedAt);
      });
    }
    process.kill(lost.pid, "SIGKILL");
    console.error(`server-1 killed at ${new Date(killedAt).toISOString()}`);
    await until("the cut observatories to reconnect", async () => (cut.size > 0 && reconnectTimes.length >= cut.size ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 100,
    }).catch((error: Error) => {
      const stuck = [...cut].filter((simulator) => !back.has(simulator));
      const states = stuck.slice(0, 5).map((simulator) => {
        const state = `connected ${simulator.connected}, reconnecting ${simulator.reconnecting}`;
        return `${observatoryIds[simulators.indexOf(simulator)]} (${state}):\n    ${(recentLines.get(simulator) ?? []).join("\n    ")}`;
      });
      throw new Error(`${error.message}: ${stuck.length} of ${cut.size} did not; the first of them:\n  ${states.join("\n  ")}`);
    });
    const sorted = [...reconnectTimes].sort((a, b) => a - b);
    figures.push(["observatories cut by the killed server", String(cut.size)]);
    figures.push([
      "their reconnection after the kill, p50 / max",
      `${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(1)} s / ${(sorted.at(-1)! / 1000).toFixed(1)} s`,
    ]);
    figures.push([
      "their failed connection attempts on the way",
      failedAttempts.size === 0 ? "none" : [...failedAttempts].map(([reason, count]) => `${count} × ${reason}`).join("; "),
    ]);
    expect(sorted.at(-1)!).toBeLessThanOrEqual(RECONNECT_LIMIT_MS);
    await allFinished("the second round to finish");

    // A worker dies (-9) while a third round is under way.
    const round3 = await submitObservations("Worker lost");
    process.kill(state.processes.find((part) => part.name === "worker-1")!.pid, "SIGKILL");
    const workerKilledAt = Date.now();
    console.error(`worker-1 killed at ${new Date(workerKilledAt).toISOString()}`);
    await allFinished("the third round to finish");
    figures.push(["third round after the worker's kill: all completed in", `${((Date.now() - workerKilledAt) / 1000).toFixed(1)} s`]);

    // Nothing assigned twice, nothing lost: each observation completed, with one assignment in its history.
    const all = [...warm, ...round2, ...round3];
    const twice: string[] = [];
    const notCompleted: string[] = [];
    await inBatches(all, 20, async (id) => {
      const history = (await call<{ items: Array<{ to: string }> }>(`/observations/${id}/history`)).body.items.map((entry) => entry.to);
      if (history.filter((to) => to === "assigned").length !== 1) twice.push(id);
      if (history.at(-1) !== "completed") notCompleted.push(id);
    });
    figures.push(["observations, all rounds", String(all.length)]);
    figures.push(["assigned more than once / not completed", `${twice.length} / ${notCompleted.length}`]);
    expect(twice).toEqual([]);
    expect(notCompleted).toEqual([]);

    // Every reader heard every status change while it was connected, from a second after its
    // connection opened (an event committed as a socket joins may or may not be its): a reader on
    // the surviving server all along, every one; a reader the kill cut, every one after it came back.
    // What the dead server still had to send to its sockets died with it and is not counted.
    const completionAt = new Map<string, number>();
    await inBatches(all, 20, async (id) => {
      const history = (await call<{ items: Array<{ to: string; at: string }> }>(`/observations/${id}/history`)).body.items;
      completionAt.set(id, new Date(history.find((entry) => entry.to === "completed")!.at).getTime());
    });
    let expected = 0;
    let missed = 0;
    for (const reader of readers) {
      const span = reader.spans.at(-1)!;
      for (const [id, at] of completionAt) {
        if (at < span.from + 1000) continue;
        expected += 1;
        if (!reader.heard.get(id)?.has("completed")) missed += 1;
      }
    }
    figures.push(["completions owed to readers on their current connection / missed", `${expected} / ${missed}`]);
    figures.push(["readers cut by the killed server", String(readers.filter((reader) => reader.spans.length > 1).length)]);
    expect(missed).toBe(0);

    // Every job finished once: none failed for good, none left locked by the dead worker.
    const sql = postgres(state.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
    try {
      const jobs = await until(
        "every job to be done",
        async () => {
          const [row] = await sql<Array<{ waiting: number; failed: number; locked: number }>>`
            select count(*) filter (where attempts < max_attempts and run_at <= now())::int as waiting,
                   count(*) filter (where attempts >= max_attempts)::int as failed,
                   count(*) filter (where locked_by is not null)::int as locked
              from graphile_worker.jobs where task_identifier not like '%scan%'`;
          return row && row.locked === 0 && row.waiting === 0 ? row : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
      figures.push(["jobs failed for good / left locked", `${jobs.failed} / ${jobs.locked}`]);
      const failedJobs = await sql<Array<{ row: unknown }>>`select row_to_json(j) as row from graphile_worker.jobs j where attempts >= max_attempts`;
      for (const job of failedJobs) console.error(`failed for good: ${JSON.stringify(job.row)}`);
      const [outbox] = await sql<Array<{ pending: number; sent: number }>>`
        select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'sent')::int as sent from email_outbox`;
      figures.push(["emails sent / left pending", `${outbox!.sent} / ${outbox!.pending}`]);
      expect(jobs.failed).toBe(0);
    } finally {
      await sql.end();
    }

    // The killed server, started again, takes traffic.
    const restarted = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
      cwd: ROOT,
      env: { ...clusterEnv, ...state.env, MERIDIAN_ROLE: "server", HOST: "127.0.0.1", PORT: String(lost.port), SERVED_BY: "server-1" },
      stdio: "ignore",
    });
    extraProcesses.push(restarted);
    const backAt = Date.now();
    await until(
      "nginx to send requests to the restarted server",
      async () => ((await call("/api/health").catch(() => ({ servedBy: null }))).servedBy === "server-1" ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    figures.push(["restarted server taking traffic after its start", `${((Date.now() - backAt) / 1000).toFixed(1)} s`]);
  });
});
