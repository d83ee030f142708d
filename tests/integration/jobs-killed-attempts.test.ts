import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { observationsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { isRunning, spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { observationDocument } from "../support/observation-documents";
import { holdTable } from "../support/table-hold";
import { sharedProcessEnv, type TestServer } from "../support/test-server";
import { until } from "../support/until";

// Every attempt of each kind of long job is killed (-9) while it runs: a killed attempt never
// reaches its own failure handling, so the job must end by what graphile-worker knows instead.
const ADMIN = { email: "killed-attempts-admin@example.com", password: "killed attempts admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
const workers: NodeProcess[] = [];
const { must, call, jobToEnd } = jsonApi(() => server);

beforeAll(async () => {
  // HTTP only: every job runs in the worker processes this file starts and kills.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Killed" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Killed" } }, 201)) as { id: string };
  await observationsCollection.insert(
    server.server.runtime.deps.db,
    observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id }, { name: "Kept" }),
  );
});
afterAll(async () => {
  for (const worker of workers) if (isRunning(worker)) await terminate(worker, 10_000);
  await server?.stop();
});

async function startWorkerProcess(name: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-killed-worker-"));
  const worker = spawnEntry("worker", { ...sharedProcessEnv(server, dataDir), LOG_LEVEL: "info" }, name);
  workers.push(worker);
  await waitForOutput(worker, /Meridian worker running/);
  return worker;
}

/** A worker that runs jobs to their end; stopped (gracefully) when done. */
async function withWorker<T>(work: () => Promise<T>): Promise<T> {
  const worker = await startWorkerProcess("a worker left alone");
  try {
    return await work();
  } finally {
    await terminate(worker, 30_000);
  }
}

interface Hold {
  release(): Promise<void>;
}

/** Holds a job's record locked: every attempt stops at its first progress report. */
async function holdJobRecord(jobId: string): Promise<Hold> {
  const blocker = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
  await blocker`begin`;
  await blocker`select id from jobs where id = ${jobId} for update`;
  return { release: () => release(blocker) };
}

async function release(blocker: postgres.Sql) {
  await blocker`rollback`.catch(() => undefined);
  await blocker.end();
}

/**
 * Backends of this database waiting on a lock. A killed attempt's backend stays among them until it
 * finds its client gone (client_connection_check_interval), so a new attempt is told by its own.
 */
async function lockWaiters(): Promise<Set<number>> {
  const rows = await server.server.runtime.deps.db.execute<{ pid: number }>(sql`
    select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
  return new Set(rows.map((row) => row.pid));
}

/** Attempt `attempt` of the job (its graphile-worker job carries the job's id, or the scan's) is taken by a worker and stuck on the hold. */
async function attemptUnderWay(ref: string, attempt: number, waitersBefore: Set<number>) {
  await until(
    `attempt ${attempt} of ${ref} to be taken`,
    async () => {
      const [row] = await server.server.runtime.deps.db.execute<{ attempts: number; locked: boolean }>(sql`
        select attempts, locked_at is not null as locked from graphile_worker._private_jobs
         where payload->>'jobId' = ${ref} or payload->>'scanId' = ${ref}`);
      return row?.attempts === attempt && row.locked;
    },
    { timeoutMs: 60_000 },
  );
  await until(`attempt ${attempt} of ${ref} to be stuck on the hold`, async () => [...(await lockWaiters())].some((pid) => !waitersBefore.has(pid)), {
    timeoutMs: 60_000,
  });
}

interface Job {
  id: string;
  kind: string;
  status: string;
  error: string | null;
}

/**
 * Runs each attempt of the job in a new worker (which first frees what the last killed one held),
 * waits until it is stuck on `hold`, and kills it. Then a last worker finds the attempts used up
 * and, before it is stopped, runs `afterwards` (the next job of the kind: one process start fewer).
 * `ref` is what the graphile-worker job carries: the job's id, or a scan's.
 */
async function killEveryAttempt(options: {
  jobId: string;
  ref?: string;
  hold: Hold;
  attempts: number;
  whileRunning?: () => Promise<void>;
  afterwards?: (job: Job) => Promise<void>;
}): Promise<Job> {
  const { jobId, hold, attempts } = options;
  try {
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const waitersBefore = await lockWaiters();
      const worker = await startWorkerProcess(`worker for attempt ${attempt} of ${jobId}`);
      await attemptUnderWay(options.ref ?? jobId, attempt, waitersBefore);
      if (attempt === 1) await options.whileRunning?.();
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
  } finally {
    await hold.release();
  }
  return withWorker(async () => {
    const job = await jobToEnd<Job>(jobId, adminToken, 60_000);
    await options.afterwards?.(job);
    return job;
  });
}

const expectEndedByKilledAttempts = (job: Job, attempts: number) => {
  expect(job.status).toBe("failed");
  expect(job.error).toContain(`Every attempt (${attempts} of ${attempts}) ended without finishing`);
};

describe("a long job whose every attempt is killed", () => {
  let backupId: string;
  let scanId: string;

  it("fails a backup, marks its record failed, and lets the next backup start", async () => {
    const started = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
    await killEveryAttempt({
      jobId: started.jobId,
      hold: await holdTable(server.databaseUrl, "push_subscriptions"),
      attempts: 3,
      afterwards: async (job) => {
        expectEndedByKilledAttempts(job, 3);
        expect(await must(`/api/v1/admin/backups/${started.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });

        // Not 409 BACKUP_RUNNING: a new backup starts, and (left alone) is verified.
        const next = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
        await jobToEnd<Job>(next.jobId, adminToken, 120_000);
        expect(await must(`/api/v1/admin/backups/${next.id}`, { token: adminToken }, 200)).toMatchObject({ status: "verified" });
        backupId = next.id;
      },
    });
  }, 300_000);

  it("fails a restore, ends its maintenance, drops its side schema, and lets the next restore start", async () => {
    const { jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    const job = await killEveryAttempt({
      jobId,
      hold: await holdTable(server.databaseUrl, "push_subscriptions"),
      attempts: 3,
      // While the attempts die, writes are refused and health says so. Health's status also carries the
      // object store's ping, which a loaded machine can take past its one second (503 "down", as in CI run 45),
      // so what is read here is its maintenance, whatever the status code.
      whileRunning: async () => {
        const health = (await call("/api/health")).body as { status: string };
        expect(health).toMatchObject({ maintenance: { active: true, jobId } });
        expect(health.status).not.toBe("ok");
        expect((await call("/projects", { method: "POST", token: owner.token, json: { name: "During" } })).status).toBe(503);
      },
    });
    expectEndedByKilledAttempts(job, 3);
    expect((await call("/api/health")).body).toMatchObject({ maintenance: { active: false, jobId: null } });
    expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
    await must("/projects", { method: "POST", token: owner.token, json: { name: "After" } }, 201);
    const schemas = await server.server.runtime.deps.db.execute(
      sql`select nspname from pg_namespace where nspname in ('meridian_restore', 'meridian_previous')`,
    );
    expect(schemas).toEqual([]);
    // The data is as it was, and another restore may start (not 409 RESTORE_RUNNING).
    const names = ((await must("/observations", { token: owner.token }, 200)) as { items: Array<{ name: string }> }).items.map((item) => item.name);
    expect(names).toEqual(["Kept"]);
    const again = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    await must(`/api/v1/admin/jobs/${again.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);

  it("fails a verification of a backup, which stays verified", async () => {
    const { jobId } = (await must(`/api/v1/admin/backups/${backupId}/verify`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    expectEndedByKilledAttempts(await killEveryAttempt({ jobId, hold: await holdJobRecord(jobId), attempts: 3 }), 3);
    expect(await must(`/api/v1/admin/backups/${backupId}`, { token: adminToken }, 200)).toMatchObject({ status: "verified" });
  }, 300_000);

  it("fails a scan and its record, and lets the next scan of its kind start", async () => {
    const scan = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as { id: string };
    const jobs = (await must("/api/v1/admin/jobs?kind=integrity_scan", { token: adminToken }, 200)) as { items: Array<{ id: string; subjectId: string }> };
    const jobId = jobs.items.find((item) => item.subjectId === scan.id)!.id;
    await killEveryAttempt({
      jobId,
      ref: scan.id,
      hold: await holdJobRecord(jobId),
      attempts: 5,
      afterwards: async (job) => {
        expectEndedByKilledAttempts(job, 5);
        expect(await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });

        const next = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as { id: string };
        await until("the next scan to complete", async () => {
          const current = (await must(`/api/v1/admin/integrity/scans/${next.id}`, { token: adminToken }, 200)) as { status: string };
          return current.status === "completed";
        });
        scanId = next.id;
      },
    });
  }, 300_000);

  it("fails a bulk repair, and lets the next one start", async () => {
    const repair = (path: string) => must(path, { method: "POST", token: adminToken, json: {} }, 202) as Promise<{ jobId: string }>;
    const { jobId } = await repair(`/api/v1/admin/integrity/scans/${scanId}/repair`);
    expectEndedByKilledAttempts(await killEveryAttempt({ jobId, hold: await holdJobRecord(jobId), attempts: 5 }), 5);
    const next = await repair(`/api/v1/admin/integrity/scans/${scanId}/repair`);
    await must(`/api/v1/admin/jobs/${next.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);

  it("fails an observation cleanup, and lets the next one start", async () => {
    const cleanup = () =>
      must("/api/v1/admin/cleanup/observations", { method: "POST", token: adminToken, json: { dryRun: false } }, 202) as Promise<{ jobId: string }>;
    const { jobId } = await cleanup();
    expectEndedByKilledAttempts(await killEveryAttempt({ jobId, hold: await holdJobRecord(jobId), attempts: 5 }), 5);
    const next = await cleanup();
    await must(`/api/v1/admin/jobs/${next.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);
});
