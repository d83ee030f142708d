// Shared helpers for the benchmarks: free ports, spawning the real server with a throw-away
// DATA_DIR, reading memory from /proc, and stopping every child (embedded PostgreSQL included)
// even when a benchmark fails half-way.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const resultsDir = path.join(repoRoot, "bench", "results");

/** Every variable packages/config/src/env.ts reads: removed from the child's environment so that
 * a developer's shell (DATABASE_URL, S3_ENDPOINT, SMTP_URL, ...) cannot leak into a benchmark. */
const MERIDIAN_VARIABLES = [
  "NODE_ENV",
  "PORT",
  "HOST",
  "PUBLIC_URL",
  "DATA_DIR",
  "MERIDIAN_ROLE",
  "DATABASE_URL",
  "EMBEDDED_POSTGRES_PORT",
  "S3_ENDPOINT",
  "S3_BUCKET",
  "S3_REGION",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_FORCE_PATH_STYLE",
  "EMBEDDED_S3_PORT",
  "ADMIN_EMAIL",
  "ADMIN_PASSWORD",
  "SUPPORT_EMAIL",
  "MAIL_FROM",
  "SMTP_URL",
  "PUSH_APP_TOKEN",
  "PUSH_API_URL",
  "VAPID_PUBLIC_KEY",
  "VAPID_PRIVATE_KEY",
  "VAPID_SUBJECT",
  "SECRETS_KEY",
  "SIGNUP_ENABLED",
  "LOGIN_FAILURES_PER_EMAIL",
  "LOGIN_FAILURES_PER_IP",
  "SIGNUPS_PER_IP_PER_HOUR",
  "SESSION_TTL_DAYS",
  "TRUST_PROXY",
  "WORKER_CONCURRENCY",
  "LOG_LEVEL",
  "WEB_DIST_DIR",
  "DATABASE_POOL_SIZE",
  "REQUEST_CACHE_TTL_MS",
];

export function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of MERIDIAN_VARIABLES) delete env[name];
  // A benchmark's few accounts stand for many people: the per-account write rate would measure itself.
  return { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", API_WRITES_PER_MINUTE: "100000000", ...extra };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const tempDirs = new Set();

/** A directory PostgreSQL (run as the `postgres` user when we are root) can traverse; removed
 * by removeTempDirs, or on exit at the latest. */
export async function makeTempDir(label) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `meridian-bench-${label}-`));
  await fsp.chmod(dir, 0o755);
  tempDirs.add(dir);
  return dir;
}

/** Removes the temporary directories; call it after the children using them have stopped. */
export async function removeTempDirs() {
  for (const dir of tempDirs) {
    await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    tempDirs.delete(dir);
  }
}

// ---------------------------------------------------------------------------------------------
// Memory

/** One `kB` field of /proc/<pid>/status in bytes, or undefined once the process is gone. */
export function statusField(pid, field) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const match = text.match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size of one process in bytes (VmRSS). */
export const readRss = (pid) => statusField(pid, "VmRSS");
/** Peak resident set size of one process in bytes (VmHWM). */
export const readPeakRss = (pid) => statusField(pid, "VmHWM");

/** The processes whose parent is `pid`. */
export function childrenOf(pid) {
  const children = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 (ppid) follows the parenthesised command, which may itself contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

function readPss(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const match = text.match(/^Pss:\s+(\d+)\s+kB/m);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The embedded postmaster's pid, from DATA_DIR/postgres/postmaster.pid, when it is running. */
function postmasterPid(dataDir) {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Proportional set size of the embedded PostgreSQL (postmaster and its backends), in bytes.
 * PSS splits shared buffers between the processes, so the sum does not count them twice. */
export function postgresPss(dataDir) {
  const pid = postmasterPid(dataDir);
  if (!pid) return undefined;
  return [pid, ...childrenOf(pid)].reduce((sum, each) => sum + readPss(each), 0);
}

export const mib = (bytes) => (bytes === undefined ? "n/a" : `${(bytes / 1024 / 1024).toFixed(0)} MiB`);

// ---------------------------------------------------------------------------------------------
// Children and cleanup

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

const tracked = new Set();

async function waitForPidExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  return !isAlive(pid);
}

/**
 * Stops a tracked child: SIGTERM, wait for it (Meridian stops HTTP, worker, pools, then runs
 * `pg_ctl stop`), SIGKILL after the grace period, and finally a fast shutdown (SIGINT) of an
 * embedded postmaster that is still running: pg_ctl daemonizes it in its own session, so it
 * would outlive a killed Node process.
 */
export async function stopChild(handle, { graceMs = 20_000 } = {}) {
  if (!handle || handle.stopped) return handle?.exitInfo;
  handle.stopped = true;
  const { child } = handle;
  if (handle.exitInfo === undefined) {
    child.kill("SIGTERM");
    const exited = await Promise.race([handle.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!exited) {
      process.stderr.write(`[bench] ${handle.name} did not stop within ${graceMs} ms; killing it\n`);
      child.kill("SIGKILL");
      await handle.exited;
    }
  }
  if (handle.dataDir) {
    const pgPid = postmasterPid(handle.dataDir);
    if (pgPid) {
      process.stderr.write(`[bench] embedded PostgreSQL ${pgPid} outlived ${handle.name}; stopping it\n`);
      try {
        process.kill(pgPid, "SIGINT");
      } catch {
        // Already gone.
      }
      if (!(await waitForPidExit(pgPid, 15_000))) process.kill(pgPid, "SIGKILL");
    }
  }
  tracked.delete(handle);
  return handle.exitInfo;
}

export async function stopAll() {
  await Promise.all([...tracked].map((handle) => stopChild(handle).catch((error) => process.stderr.write(`[bench] ${error.stack}\n`))));
}

/** Last resort when the process is exiting synchronously: no waiting is possible here. */
function killAllNow() {
  for (const handle of tracked) {
    if (handle.exitInfo === undefined) handle.child.kill("SIGKILL");
    const pgPid = handle.dataDir ? postmasterPid(handle.dataDir) : undefined;
    if (pgPid) {
      try {
        process.kill(pgPid, "SIGINT");
      } catch {
        // Already gone.
      }
    }
  }
}

let hooksInstalled = false;
/** Stops every child on Ctrl-C, SIGTERM, an uncaught error, or a plain exit. */
export function installCleanupHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  let interrupted = false;
  const onSignal = (signal) => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n[bench] ${signal}: stopping children\n`);
    stopAll()
      .then(removeTempDirs)
      .finally(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("uncaughtException", (error) => {
    process.stderr.write(`[bench] ${error.stack ?? error}\n`);
    stopAll()
      .then(removeTempDirs)
      .finally(() => process.exit(1));
  });
  process.on("unhandledRejection", (error) => {
    process.stderr.write(`[bench] ${error?.stack ?? error}\n`);
    stopAll()
      .then(removeTempDirs)
      .finally(() => process.exit(1));
  });
  process.on("exit", () => {
    killAllNow();
    for (const dir of tempDirs) {
      try {
        fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // Best effort: a PostgreSQL still shutting down may be writing there.
      }
    }
  });
}

/** Spawns a tracked child process, keeping the tail of its output for error messages. */
export function spawnTracked(name, command, args, { dataDir, ...spawnOptions } = {}) {
  const child = spawn(command, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], ...spawnOptions });
  const handle = { name, child, pid: child.pid, dataDir, output: "", exitInfo: undefined, stopped: false };
  const keep = (chunk) => {
    handle.output = (handle.output + chunk.toString()).slice(-8000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  handle.exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      handle.exitInfo = { code, signal };
      resolve(handle.exitInfo);
    });
    child.on("error", (error) => {
      handle.output += `\nspawn error: ${error.message}`;
      handle.exitInfo ??= { code: null, signal: null, error };
      resolve(handle.exitInfo);
    });
  });
  tracked.add(handle);
  return handle;
}

/**
 * Starts the real server (`node --import tsx apps/server/src/main.ts`) from the repo root on
 * embedded PostgreSQL and S3 under `dataDir`. Returns the handle at once; use waitForStatus.
 */
export function spawnMeridian({ dataDir, port, postgresPort, role = "all", tmpDir, extraEnv = {} }) {
  const env = cleanEnv({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    MERIDIAN_ROLE: role,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    ...(tmpDir ? { TMPDIR: tmpDir } : {}),
    ...extraEnv,
  });
  // BENCH_SERVER_CPU_PROF_DIR: the server writes a CPU profile there when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
  const profile = process.env.BENCH_SERVER_CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF_DIR}`] : [];
  const handle = spawnTracked("meridian", process.execPath, [...profile, "--import", "tsx", "apps/server/src/main.ts"], { env, dataDir });
  handle.baseUrl = `http://127.0.0.1:${port}`;
  return handle;
}

/** Starts a worker process as `pnpm start:worker` does and waits until it takes jobs. */
export async function spawnWorker(extraEnv, { timeoutMs = 60_000 } = {}) {
  const env = cleanEnv({ LOG_LEVEL: "info", NODE_ENV: "production", ...extraEnv });
  const handle = spawnTracked("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], { env });
  const deadline = performance.now() + timeoutMs;
  while (!handle.output.includes("Meridian worker running")) {
    if (handle.exitInfo !== undefined || performance.now() > deadline) throw new Error(`the worker did not start:\n${handle.output}`);
    await sleep(20);
  }
  return handle;
}

/**
 * Polls `url` until it answers `status`; returns ms since `since`. Fails early when the child
 * exits, and after `timeoutMs`.
 */
export async function waitForStatus(handle, url, { status = 200, since = performance.now(), timeoutMs = 120_000, intervalMs = 20 } = {}) {
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    if (handle.exitInfo !== undefined) throw new Error(`${handle.name} exited (${JSON.stringify(handle.exitInfo)}) before ${url} answered:\n${handle.output}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === status) return performance.now() - since;
    } catch {
      // Not listening yet.
    }
    await sleep(intervalMs);
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms:\n${handle.output}`);
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");

export function machineDescription() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? "unknown",
    cores: cpus.length,
    memory: `${Math.round(os.totalmem() / 1024 ** 3)} GiB`,
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverage: loadAverage(),
  };
}

/** Writes through a `.tmp` sibling (ignored by git) and renames, so a crash never leaves half a file. */
export async function writeResult(fileName, text) {
  await fsp.mkdir(resultsDir, { recursive: true });
  const target = path.join(resultsDir, fileName);
  await fsp.writeFile(`${target}.tmp`, text);
  await fsp.rename(`${target}.tmp`, target);
  return target;
}

/** The value below which `p` percent of `values` lie (nearest rank; 0 for none). */
export const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// ---------------------------------------------------------------------------------------------
// CPU time

let clockTicks;
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU seconds a process has used so far (from /proc/<pid>/stat). */
export function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command: state(0) ppid(1) ... utime(11) stime(12).
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
  } catch {
    return 0;
  }
}

/** Like cpuSeconds, plus the CPU of children it has waited for (cutime + cstime): initdb, pg_ctl. */
export function cpuSecondsWithChildren(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond();
  } catch {
    return 0;
  }
}

/** CPU seconds of the embedded postmaster and its current backends (ended backends drop out). */
export function postgresCpuSeconds(dataDir) {
  const pid = postmasterPid(dataDir);
  if (!pid) return 0;
  return [pid, ...childrenOf(pid)].reduce((sum, each) => sum + cpuSeconds(each), 0);
}

/** A numeric command-line option, `--name value`, or `fallback` when absent. */
export function numberOption(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} needs a number`);
  return value;
}

/** One autocannon run (programmatic API, in this process); `expectBody` counts any other body as a mismatch. */
export function runAutocannon({ url, headers, connections, duration, expectBody }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, timeout: 10, expectBody }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** A MiB of filler, the piece every generated upload body is made of. */
export const MIB_CHUNK = Buffer.alloc(1024 * 1024, 0x2a);

/** A body of `sizeMib` MiB made on the fly, of unknown length: nothing of it is held by the sender. */
export function generatedBody(sizeMib) {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= sizeMib) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(MIB_CHUNK));
    },
  });
}

/** A JSON call to a Meridian server (POST when `json` is given, unless `method` says otherwise); anything but 2xx throws. */
export async function callJson(base, pathname, token, json, method = json ? "POST" : "GET") {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}
