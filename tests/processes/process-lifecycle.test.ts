import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port";
import { isRunning, spawnEntry, spawnTsx, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { until } from "../support/until";

/**
 * The real entry points (`pnpm start` runs apps/server/src/main.ts, `pnpm start:worker`
 * apps/worker/src/main.ts) as separate processes, fully embedded: no DATABASE_URL, no S3_ENDPOINT.
 * Each is started once exactly as its package script starts it (`node --import tsx`: the server in
 * the first case, the worker in the second); every other start is from the run's bundle of the same
 * entry point (ADR 0049), which starts in a third of the CPU.
 */

const spawned: NodeProcess[] = [];

function start(entry: "server" | "worker", env: Record<string, string>, as: "package script" | "bundle" = "bundle"): NodeProcess {
  const proc = as === "package script" ? spawnTsx(entry === "server" ? "apps/server/src/main.ts" : "apps/worker/src/main.ts", env) : spawnEntry(entry, env);
  spawned.push(proc);
  return proc;
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PostgreSQL postmasters whose command line names this data directory (`postgres -D <pgdata>`).
 * A freshly forked backend still shows its parent's command line for a moment: only processes
 * whose parent is not one of them count.
 */
async function postmastersFor(pgdata: string): Promise<number[]> {
  const matches = new Map<number, number>();
  for (const entry of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const argv = cmdline.split("\0");
    if (path.basename(argv[0] ?? "") !== "postgres" || !argv.includes(pgdata)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // Fields after the parenthesised command: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    matches.set(Number(entry), ppid);
  }
  return [...matches].filter(([, ppid]) => !matches.has(ppid)).map(([pid]) => pid);
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

async function health(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}/api/health`);
  return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, { status: string }> } };
}

/** Polls a process that may not answer yet: errors count as "not yet". */
const poll = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number) =>
  until(what, probe, { timeoutMs, intervalMs: 100, ignoreErrors: true });

/**
 * Health once its overall status is `expected`. Each check is time-boxed to a second, and on a
 * loaded machine one answer can miss it (503 "down"), so a test waits for the state it expects.
 */
const healthWhen = (port: number, expected: "ok" | "degraded") =>
  poll(`health to be ${expected}`, async () => {
    const result = await health(port);
    return result.body.status === expected ? result : undefined;
  });

let dataDir: string;
let pgdata: string;
let baseEnv: Record<string, string>;
let httpPort: number;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-lifecycle-"));
  pgdata = path.join(dataDir, "postgres");
  httpPort = await freePort();
  baseEnv = {
    DATA_DIR: dataDir,
    PORT: String(httpPort),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    WEB_DIST_DIR: path.join(dataDir, "no-web"),
  };
});

// A failed assertion must not leave a process holding the ports for the next test.
afterEach(async () => {
  await Promise.all(spawned.filter(isRunning).map((proc) => terminate(proc)));
}, 60_000);

afterAll(async () => {
  for (const proc of spawned) if (isRunning(proc)) proc.child.kill("SIGKILL");
  await Promise.all(spawned.map((proc) => proc.exited));
  // Whatever a failed test left behind: fast shutdown of the postmaster, then the files.
  if (pgdata) {
    for (const pid of await postmastersFor(pgdata)) process.kill(pid, "SIGINT");
    await poll("left-over PostgreSQL to stop", async () => ((await postmastersFor(pgdata)).length === 0 ? true : undefined), 30_000).catch(() => undefined);
  }
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe("process lifecycle, fully embedded", () => {
  it("starts with a fresh DATA_DIR, serves health, and on SIGTERM exits 0 leaving no PostgreSQL behind", async () => {
    const server = start("server", baseEnv, "package script");
    await waitForOutput(server, /listening on/);
    expect(server.output()).toContain(`embedded, data in ${dataDir}/postgres`);

    const { status, body } = await healthWhen(httpPort, "ok");
    expect(status).toBe(200);
    expect(body.checks.database!.status).toBe("ok");
    expect(await exists(path.join(pgdata, "PG_VERSION"))).toBe(true);
    expect(await postmastersFor(pgdata)).toHaveLength(1);
    expect(await exists(path.join(pgdata, "postmaster.pid"))).toBe(true);

    expect(await terminate(server)).toEqual({ code: 0, signal: null });
    expect(await postmastersFor(pgdata)).toEqual([]);
    expect(await exists(path.join(pgdata, "postmaster.pid"))).toBe(false);
    // The HTTP port is free again.
    await expect(fetch(`http://127.0.0.1:${httpPort}/api/health/live`)).rejects.toThrow();
  }, 150_000);

  it("runs a worker process beside the server over the same embedded PostgreSQL", async () => {
    const server = start("server", { ...baseEnv, MERIDIAN_ROLE: "server" });
    await waitForOutput(server, /listening on/);
    const before = await healthWhen(httpPort, "degraded");
    expect(before.status).toBe(200);
    expect(before.body.checks.worker!.status).toBe("down");

    const worker = start("worker", { ...baseEnv, LOG_LEVEL: "info" }, "package script");
    await waitForOutput(worker, /Meridian worker running/);
    expect(worker.output()).toContain("sharing the embedded PostgreSQL started by another Meridian process");
    // A start as configured warns of nothing: graphile-worker's note on the deliberately small shared pool is not a warning here.
    expect(worker.output()).not.toMatch(/"level":"?(warn|40)|maxPoolSize/);
    // Nor does it read as if something failed: the schedules are given in code, so no crontab file is looked for.
    expect(worker.output()).not.toMatch(/crontab|cron is disabled/);
    // Its heartbeat, written to the shared database, is what the server reports.
    const withWorker = await healthWhen(httpPort, "ok");
    expect(withWorker.status).toBe(200);
    expect(withWorker.body.checks.worker!.status).toBe("ok");
    expect(await postmastersFor(pgdata)).toHaveLength(1);

    // Stopping the worker leaves the server's PostgreSQL running.
    expect(await terminate(worker)).toEqual({ code: 0, signal: null });
    expect(await postmastersFor(pgdata)).toHaveLength(1);
    const after = await healthWhen(httpPort, "degraded");
    expect(after.status).toBe(200);
    expect(after.body.checks.worker!.status).toBe("down");
    expect(after.body.checks.database!.status).toBe("ok");

    expect(await terminate(server)).toEqual({ code: 0, signal: null });
    expect(await postmastersFor(pgdata)).toEqual([]);
  }, 180_000);

  it("keeps PostgreSQL up for the server when a worker that started first stops first", async () => {
    const worker = start("worker", { ...baseEnv, LOG_LEVEL: "info" });
    await waitForOutput(worker, /Meridian worker running/);
    const server = start("server", { ...baseEnv, MERIDIAN_ROLE: "server" });
    await waitForOutput(server, /listening on/);
    expect((await healthWhen(httpPort, "ok")).body.checks.worker!.status).toBe("ok");

    expect(await terminate(worker)).toEqual({ code: 0, signal: null });
    const after = await healthWhen(httpPort, "degraded");
    expect(after.status).toBe(200);
    expect(after.body.checks.worker!.status).toBe("down");
    expect(after.body.checks.database!.status).toBe("ok");
    const signup = await fetch(`http://127.0.0.1:${httpPort}/api/v1/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "after-worker@example.com", password: "correct horse battery", name: "After" }),
    });
    expect(signup.status).toBe(201);

    // The last one out stops PostgreSQL.
    expect(await terminate(server)).toEqual({ code: 0, signal: null });
    expect(await postmastersFor(pgdata)).toEqual([]);
  }, 180_000);
  it("recovers the PostgreSQL left running by a kill -9 on the next start", async () => {
    const first = start("server", baseEnv);
    await waitForOutput(first, /listening on/);
    const [postmaster] = await postmastersFor(pgdata);
    expect(postmaster).toBeDefined();

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    // The scenario is real: Node is gone, its PostgreSQL is not.
    expect(isAlive(postmaster!)).toBe(true);
    expect(await exists(path.join(pgdata, "postmaster.pid"))).toBe(true);

    const second = start("server", baseEnv);
    await waitForOutput(second, /listening on/);
    const { status, body } = await healthWhen(httpPort, "ok");
    expect(status).toBe(200);
    expect(body.checks.database!.status).toBe("ok");
    expect(await postmastersFor(pgdata)).toHaveLength(1);

    expect(await terminate(second)).toEqual({ code: 0, signal: null });
    expect(await postmastersFor(pgdata)).toEqual([]);
    expect(await exists(path.join(pgdata, "postmaster.pid"))).toBe(false);
  }, 180_000);
});
