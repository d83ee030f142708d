/**
 * The cluster's throughput under a mixed load with one and with two server processes (issue 26,
 * point 8): `pnpm cluster --servers N --workers W` is started afresh for each run, users, projects
 * and observatories are made through the public API, simulated observatories (a process of their
 * own) run every assignment through to completed, user sockets hear the status changes, and
 * closed-loop virtual users drive reads, submissions and cancels through nginx (bench/cluster-load.ts).
 * The configurations alternate (1, 2, 2, 1, 1, 2, …) so that the machine's noise does not decide;
 * medians per configuration, then the gain of the second server. Results: bench/results/cluster-throughput.md
 * (with another --connections, cluster-throughput-<n>-connections.md).
 *   node --import tsx bench/cluster-throughput.ts [--rounds 3] [--duration 20] [--warmup 5] [--connections 32]
 *     [--users 4] [--observatories 40] [--workers 2] [--speed 10]
 */
import { fork, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { driveMixedLoad, type Kind, type KindStats, type LoadUser } from "./cluster-load";
import { callJson, median, numberOption, percentile, writeResult } from "./lib.mjs";
import { sampleConnections } from "./postgres-waits";
import { machineBusySeconds, ownCpuSeconds, treeCpuSeconds } from "./process-cpu";

const ROUNDS = numberOption("rounds", 3);
const DURATION_S = numberOption("duration", 20);
const WARMUP_S = numberOption("warmup", 5);
const CONNECTIONS = numberOption("connections", 32);
const USERS = numberOption("users", 4);
const OBSERVATORIES = numberOption("observatories", 40);
const WORKERS = numberOption("workers", 2);
const SPEED = numberOption("speed", 10);
const root = path.resolve(import.meta.dirname, "..");
const KINDS: Kind[] = ["me", "pending", "list", "submit", "cancel"];

interface ClusterState {
  address: string;
  env: Record<string, string>;
  processes: Array<{ name: string; pid: number }>;
}

interface Run {
  servers: number;
  stats: Record<Kind, KindStats>;
  seconds: number;
  reports: number;
  completed: number;
  heard: number;
  /** Status changes published in the window (each to its owner's socket, among others). */
  published: number;
  /** From `assign` to the ack of `completed` at the observatory, ms, for each observation completed in the window. */
  cycles: number[];
  /** Observatories holding one observation for more than 10 s at the window's end. */
  stalled: number;
  cpu: Record<string, number>;
  /** CPU seconds the machine was busy in the window, this benchmark's processes and everyone else's. */
  machineBusy: number;
  /** Average PostgreSQL client connections in each state. */
  connections: Record<string, number>;
  backlog: number;
  /** Jobs waiting in graphile-worker's queue at the end, by task. */
  jobsWaiting: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const children = new Set<ChildProcess>();

async function startCluster(servers: number) {
  const cluster = spawn(process.execPath, ["--import", "tsx", "scripts/cluster.ts", "--servers", String(servers), "--workers", String(WORKERS)], {
    cwd: root,
    // Its few users stand for many people: the per-account write rate would cap the submissions it measures.
    env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production", API_WRITES_PER_MINUTE: "100000000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(cluster);
  let output = "";
  cluster.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  cluster.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 300_000;
  let folder: string | undefined;
  while (!(folder = /logs in (\S+);/.exec(output)?.[1])) {
    if (cluster.exitCode !== null || Date.now() > deadline) throw new Error(`the cluster did not start:\n${output}`);
    await sleep(200);
  }
  const state = JSON.parse(await fs.readFile(path.join(folder, "cluster.json"), "utf8")) as ClusterState;
  return { cluster, folder, state };
}

async function stopCluster(cluster: ChildProcess) {
  if (cluster.exitCode === null) {
    const exited = new Promise((resolve) => cluster.once("exit", resolve));
    cluster.kill("SIGINT");
    await Promise.race([exited, sleep(90_000)]);
    if (cluster.exitCode === null) cluster.kill("SIGKILL");
  }
  children.delete(cluster);
}

const api = async <T>(address: string, pathname: string, token: string | null, json?: unknown) => (await callJson(address, pathname, token, json)) as T;

/** USERS users, each with a project and OBSERVATORIES / USERS observatories with a key, through nginx. */
async function seed(address: string) {
  const users: LoadUser[] = [];
  const keys: string[] = [];
  for (let index = 0; index < USERS; index += 1) {
    const { token } = await api<{ token: string }>(address, "/api/v1/auth/signup", null, {
      email: `load-${index}@example.com`,
      password: "cluster throughput",
      name: `Load ${index}`,
    });
    const project = await api<{ id: string }>(address, "/projects", token, { name: `Throughput ${index}` });
    const observatoryIds: string[] = [];
    for (let count = 0; count < OBSERVATORIES / USERS; count += 1) {
      const observatory = await api<{ id: string }>(address, "/observatories", token, { name: `Dome ${index}.${count}` });
      keys.push((await api<{ key: string }>(address, `/observatories/${observatory.id}/api-keys`, token, { name: "plugin" })).key);
      observatoryIds.push(observatory.id);
    }
    users.push({ token, projectId: project.id, observatoryIds });
  }
  return { users, keys };
}

function startObservatories(address: string, keys: string[], users: LoadUser[]) {
  const child = fork(path.join(root, "bench/cluster-observatories.ts"), [], { execArgv: ["--import", "tsx"], cwd: root, stdio: "inherit" });
  children.add(child);
  const next = (type: string) =>
    new Promise<Record<string, number>>((resolve, reject) => {
      const listen = (message: { type: string; message?: string } & Record<string, number>) => {
        if (message.type === "failed") reject(new Error(message.message));
        if (message.type !== type) return;
        child.off("message", listen);
        resolve(message);
      };
      child.on("message", listen);
    });
  const connected = next("connected");
  child.send({ type: "start", address, keys, readerTokens: users.map((user) => user.token), speed: SPEED });
  return {
    pid: child.pid!,
    connected,
    counts: () => {
      const answer = next("counts");
      child.send({ type: "count" });
      return answer as unknown as Promise<{ reports: number; completed: number; heard: number; cycles: number[]; stalled: number }>;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      await Promise.race([exited, sleep(20_000)]);
      child.kill("SIGKILL");
      children.delete(child);
    },
  };
}

/** CPU seconds so far of each part of the cluster and of this benchmark's own processes. */
async function cpuNow(folder: string, state: ClusterState, clusterPid: number, observatoriesPid: number) {
  const pidIn = async (file: string) => Number((await fs.readFile(file, "utf8")).split("\n")[0]);
  const cpu: Record<string, number> = {};
  for (const part of state.processes) cpu[part.name] = ownCpuSeconds(part.pid);
  cpu.PostgreSQL = treeCpuSeconds(await pidIn(path.join(folder, "postgres", "postmaster.pid")));
  cpu.nginx = treeCpuSeconds(await pidIn(path.join(folder, "nginx.pid")));
  // The S3 store runs inside the cluster script's own process.
  cpu["S3 store"] = ownCpuSeconds(clusterPid);
  cpu.observatories = ownCpuSeconds(observatoriesPid);
  const own = process.cpuUsage();
  cpu["load generator"] = (own.user + own.system) / 1e6;
  return cpu;
}

async function measure(servers: number): Promise<Run> {
  const { cluster, folder, state } = await startCluster(servers);
  try {
    const { users, keys } = await seed(state.address);
    const observatories = startObservatories(state.address, keys, users);
    try {
      await observatories.connected;
      let recording = false;
      let stop!: () => void;
      const until = new Promise<void>((resolve) => (stop = resolve));
      const load = driveMixedLoad({ address: state.address, users, connections: CONNECTIONS, recording: () => recording, until });
      await sleep(WARMUP_S * 1000);
      const cpuBefore = await cpuNow(folder, state, cluster.pid!, observatories.pid);
      const busyBefore = machineBusySeconds();
      const countsBefore = await observatories.counts();
      const sampler = sampleConnections(state.env.DATABASE_URL!);
      const started = performance.now();
      const windowStart = new Date();
      recording = true;
      await sleep(DURATION_S * 1000);
      recording = false;
      const seconds = (performance.now() - started) / 1000;
      const windowEnd = new Date();
      const cpuAfter = await cpuNow(folder, state, cluster.pid!, observatories.pid);
      const machineBusy = machineBusySeconds() - busyBefore;
      const countsAfter = await observatories.counts();
      const connections = await sampler.stop();
      stop();
      const stats = await load;
      const sql = postgres(state.env.DATABASE_URL!, { max: 1, onnotice: () => undefined });
      const statuses = await sql<
        Array<{ status: string; count: number }>
      >`select doc->>'status' as status, count(*)::int as count from observations group by 1`;
      const row = { backlog: statuses.find((entry) => entry.status === "pending")?.count ?? 0 };
      console.log(`observations by status at the end: ${statuses.map((entry) => `${entry.status} ${entry.count}`).join(", ")}`);
      const jobs = await sql<Array<{ task: string; count: number }>>`
        select task_identifier as task, count(*)::int as count from graphile_worker.jobs where locked_at is null group by 1`;
      // What the user sockets should have heard in the window: every status change is published to its owner.
      const [published] = await sql<Array<{ changes: number }>>`
        select count(*)::int as changes from realtime_events
         where type = 'observation.status_changed' and created_at >= ${windowStart} and created_at < ${windowEnd}`;
      await sql.end();
      return {
        servers,
        stats,
        seconds,
        reports: countsAfter.reports - countsBefore.reports,
        completed: countsAfter.completed - countsBefore.completed,
        heard: countsAfter.heard - countsBefore.heard,
        published: published!.changes,
        cycles: countsAfter.cycles,
        stalled: countsAfter.stalled,
        cpu: Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, cpuAfter[name]! - (cpuBefore[name] ?? 0)])),
        machineBusy,
        connections,
        backlog: row.backlog,
        jobsWaiting: Object.fromEntries(jobs.map((job) => [job.task, job.count])),
      };
    } finally {
      await observatories.stop();
    }
  } finally {
    await stopCluster(cluster);
  }
}

const sum = (values: number[]) => values.reduce((all, value) => all + value, 0);
const unionOf = (records: Array<Record<string, number>>) => [...new Set(records.flatMap((record) => Object.keys(record)))].sort();
const total = (run: Run) => KINDS.reduce((sum, kind) => sum + run.stats[kind].count, 0);
const errors = (run: Run) => KINDS.reduce((sum, kind) => sum + run.stats[kind].errors, 0);
const allLatencies = (run: Run) => KINDS.flatMap((kind) => run.stats[kind].latencies);
const perSecond = (value: number, run: Run) => value / run.seconds;

function summaryLine(run: Run) {
  const latencies = allLatencies(run);
  const cpuTotal = sum(Object.values(run.cpu));
  return (
    `${run.servers} server(s): ${perSecond(total(run), run).toFixed(0)} req/s, p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
    `p99 ${percentile(latencies, 99).toFixed(1)} ms, errors ${errors(run)}, completed ${perSecond(run.completed, run).toFixed(1)}/s, ` +
    `stalled observatories ${run.stalled}, CPU ${((cpuTotal / run.seconds) * 100).toFixed(0)} % of a core ` +
    `(machine ${((run.machineBusy / run.seconds) * 100).toFixed(0)} %), backlog ${run.backlog}, ` +
    `connections ${JSON.stringify(run.connections)}, jobs waiting ${JSON.stringify(run.jobsWaiting)}`
  );
}

function report(runs: Run[], loadAtStart: string) {
  const of = (servers: number) => runs.filter((run) => run.servers === servers);
  const med = (servers: number, value: (run: Run) => number) => median(of(servers).map(value));
  const number = (value: number, digits = 0) => value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const row = (label: string, value: (run: Run) => number, digits = 0, gain = true) => {
    const [one, two] = [med(1, value), med(2, value)];
    return `| ${label} | ${number(one, digits)} | ${number(two, digits)} | ${gain && one > 0 ? `${(two / one).toFixed(2)}×` : ""} |`;
  };
  const kindLabel: Record<Kind, string> = {
    me: "`GET /api/v1/auth/me`",
    pending: "`GET /api/v1/user/motd/pending`",
    list: "`GET /observations` (first page)",
    submit: "`POST /observations`",
    cancel: "`POST /observations/{id}/cancel`",
  };
  const parts = Object.keys(runs[0]!.cpu).filter((name) => !/^(server|worker)-/.test(name));
  const cpuShare = (run: Run, names: (name: string) => boolean) =>
    (Object.entries(run.cpu)
      .filter(([name]) => names(name))
      .reduce((sum, [, value]) => sum + value, 0) /
      run.seconds) *
    100;
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model?.trim()}), Node ${process.version}`;
  const lines = [
    "# Cluster throughput, one server process against two",
    "",
    `\`node --import tsx bench/cluster-throughput.ts\`, run on ${new Date().toISOString().slice(0, 10)}: ${machine}; load average at the start ` +
      `${loadAtStart}, at the end ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(" / ")}.`,
    `Each run: a fresh \`pnpm cluster --servers N --workers ${WORKERS}\` (nginx, Debian's PostgreSQL, the S3 store), ${USERS} users with a project and ` +
      `${OBSERVATORIES / USERS} observatories each, ${OBSERVATORIES} simulated observatories (speed ${SPEED}: an observation of 1 s exposure takes ` +
      `${1000 / SPEED} ms at the telescope) and ${USERS} user sockets, ${CONNECTIONS} closed-loop virtual users through nginx, ${WARMUP_S} s warm-up, ` +
      `${DURATION_S} s measured. ${ROUNDS} rounds, configurations alternating; medians per configuration (every run in the second table).`,
    "",
    "| Measure (per second unless said) | 1 server | 2 servers | 2 ÷ 1 |",
    "|---|---:|---:|---:|",
    row("**all requests**", (run) => perSecond(total(run), run)),
    ...KINDS.map((kind) => row(kindLabel[kind], (run) => perSecond(run.stats[kind].count, run))),
    row("observatory status reports (in_progress, acquisition_complete, completed)", (run) => perSecond(run.reports, run)),
    row("**observations completed**", (run) => perSecond(run.completed, run), 1),
    row("status changes published to the users (realtime events)", (run) => perSecond(run.published, run)),
    row("status changes heard on the user sockets", (run) => perSecond(run.heard, run)),
    row("an observation at its observatory, `assign` to `completed` acknowledged: p50 (ms)", (run) => percentile(run.cycles, 50), 0, false),
    row("the same, p99 (ms)", (run) => percentile(run.cycles, 99), 0, false),
    row("the same, slowest (ms)", (run) => Math.max(0, ...run.cycles), 0, false),
    row(`observatories (of ${OBSERVATORIES}) holding one observation for more than 10 s at the end`, (run) => run.stalled, 0, false),
    row("latency p50, all requests (ms)", (run) => percentile(allLatencies(run), 50), 1, false),
    row("latency p99, all requests (ms)", (run) => percentile(allLatencies(run), 99), 1, false),
    ...KINDS.map((kind) => {
      const at = (servers: number, p: number) =>
        number(
          med(servers, (run) => percentile(run.stats[kind].latencies, p)),
          1,
        );
      return `| ${kindLabel[kind]} p50 / p99 (ms) | ${at(1, 50)} / ${at(1, 99)} | ${at(2, 50)} / ${at(2, 99)} | |`;
    }),
    row("errors (count in the window)", errors, 0, false),
    row("cancels refused: already past acquisition (count)", (run) => run.stats.cancel.refused, 0, false),
    row("pending observations left at the end (count)", (run) => run.backlog, 0, false),
    row("CPU, server processes together (% of a core)", (run) => cpuShare(run, (name) => name.startsWith("server-"))),
    row("CPU, worker processes together (% of a core)", (run) => cpuShare(run, (name) => name.startsWith("worker-"))),
    ...parts.map((part) => row(`CPU, ${part} (% of a core)`, (run) => cpuShare(run, (name) => name === part))),
    row("CPU, everything measured (% of a core; the machine has 200)", (run) => cpuShare(run, () => true)),
    row("CPU, the machine busy in all (% of a core)", (run) => (run.machineBusy / run.seconds) * 100),
    row("CPU, other work on the machine: not this benchmark (% of a core)", (run) => ((run.machineBusy - sum(Object.values(run.cpu))) / run.seconds) * 100),
    ...unionOf(runs.map((run) => run.connections)).map((what) =>
      row(`PostgreSQL client connections ${what} (average)`, (run) => run.connections[what] ?? 0, 1, false),
    ),
    ...unionOf(runs.map((run) => run.jobsWaiting)).map((task) => row(`jobs waiting at the end: ${task}`, (run) => run.jobsWaiting[task] ?? 0, 0, false)),
    "",
    "Every run:",
    "",
    "| Run | Servers | Requests/s | Completed/s | p50 / p99 (ms) | Errors | CPU per process (% of a core) |",
    "|---:|---:|---:|---:|---|---:|---|",
    ...runs.map((run, index) => {
      const latencies = allLatencies(run);
      const cpu = Object.entries(run.cpu)
        .map(([name, value]) => `${name} ${((value / run.seconds) * 100).toFixed(0)}`)
        .join(", ");
      return (
        `| ${index + 1} | ${run.servers} | ${number(perSecond(total(run), run))} | ${perSecond(run.completed, run).toFixed(1)} | ` +
        `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} | ${errors(run)} | ${cpu} |`
      );
    }),
  ];
  const examples = runs.flatMap((run) => KINDS.flatMap((kind) => run.stats[kind].examples));
  if (examples.length > 0) lines.push("", "Errors seen (first of each kind):", "", ...examples.slice(0, 10).map((example) => `- \`${example}\``));
  return `${lines.join("\n")}\n`;
}

async function main() {
  const loadAtStart = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const servers of round % 2 === 0 ? [1, 2] : [2, 1]) {
      const run = await measure(servers);
      runs.push(run);
      console.log(`round ${round + 1}, ${summaryLine(run)}`);
    }
  }
  const text = report(runs, loadAtStart);
  // Another number of virtual users is another experiment: its own file, beside the default's.
  await writeResult(CONNECTIONS === 32 ? "cluster-throughput.md" : `cluster-throughput-${CONNECTIONS}-connections.md`, text);
  console.log(`\n${text}`);
}

try {
  await main();
} finally {
  for (const child of children) child.kill("SIGKILL");
}
// fetch's pooled connections to a cluster that is gone would keep the process waiting.
process.exit(0);
