import { randomUUID } from "node:crypto";
import { jobsCollection, observationsCollection, tables } from "@meridian/db";
import { startWorker } from "@meridian/worker";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Every attempt of each kind of long job killed (-9) while it ran, with its subject: a killed attempt never
 * reaches its own failure handling, so the job must end by what graphile-worker knows instead. The kills are
 * written as graphile-worker's rows as dead workers leave them (as graphile-worker's own tests write a crashed
 * worker's jobs), with what each attempt had committed before it died; then a worker starts, as one would
 * after them, and its recovery ends the job. Real kills of every attempt, and of workers mid-job, are in
 * the process lane (tests/processes/delivery-worker-killed.test.ts, worker-crash-recovery.test.ts,
 * backup-restore-crash.test.ts); every kind of the registry is walked in job-kinds-killed.test.ts.
 */
const ADMIN = { email: "killed-attempts-admin@example.com", password: "killed attempts admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
const { must, call, jobToEnd } = jsonApi(() => server);
const deps = () => server.server.runtime.deps;

beforeAll(async () => {
  // HTTP only: jobs wait until a test starts a worker, so that their attempts can be killed first.
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  owner = await createAccount(server);
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Killed" } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: "Killed" } }, 201)) as { id: string };
  await observationsCollection.insert(
    deps().db,
    observationDocument({ projectId: project.id, observatoryId: observatory.id, ownerId: owner.id }, { name: "Kept" }),
  );
});
afterAll(() => server?.stop());

/** A worker in this process, as a worker started after the killed ones: its start frees what dead workers held and ends their jobs. Stopped when done. */
async function withWorker<T>(work: () => Promise<T>): Promise<T> {
  const worker = await startWorker({ deps: deps(), databaseUrl: server.databaseUrl });
  try {
    return await work();
  } finally {
    await worker.stop();
  }
}

type Transaction = Parameters<Parameters<ReturnType<typeof deps>["db"]["transaction"]>[0]>[0];

/**
 * What graphile-worker's table holds once every attempt of a job was killed: each attempt counted when it was taken, all
 * `attempts` of them spent; the job still locked by the last one's worker, whose heartbeat stays behind while its presence
 * lock went with its connection; no error, since a killed attempt records none. `ref` is what the job carries (the
 * tracked job's id, or a scan's); `committed` writes, in the same transaction, what the attempts committed before they died.
 */
async function killEveryAttempt(options: { ref: string; attempts: number; committed?: (tx: Transaction) => Promise<void> }) {
  const dead = `killed-${randomUUID().slice(0, 8)}`;
  await deps().db.transaction(async (tx) => {
    const killed = await tx.execute<{ max_attempts: number }>(sql`
      update graphile_worker._private_jobs set attempts = ${options.attempts}, locked_by = ${dead}, locked_at = now()
       where payload->>'jobId' = ${options.ref} or payload->>'scanId' = ${options.ref}
      returning max_attempts`);
    // The kind's attempts: every one of them was killed.
    expect(killed).toEqual([{ max_attempts: options.attempts }]);
    await tx.execute(sql`insert into worker_heartbeats (worker_id, graphile_worker_ids) values (${dead}, array[${dead}]::text[])`);
    await options.committed?.(tx);
  });
}

/** Its attempts had reported it running, at `stage`. */
const markedRunning = (jobId: string, stage: string) => async (tx: Transaction) => {
  await jobsCollection.update(tx, jobId, (doc) => ({ ...doc, status: "running", progress: { ...doc.progress, stage } }));
};

interface Job {
  id: string;
  kind: string;
  status: string;
  error: string | null;
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
    // Each attempt died halfway through its archive.
    await killEveryAttempt({ ref: started.jobId, attempts: 3, committed: markedRunning(started.jobId, "archive") });
    await withWorker(async () => {
      expectEndedByKilledAttempts(await jobToEnd<Job>(started.jobId, adminToken), 3);
      expect(await must(`/api/v1/admin/backups/${started.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });

      // Not 409 BACKUP_RUNNING: a new backup starts, and (left alone) is verified.
      const next = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
      await jobToEnd<Job>(next.jobId, adminToken, 120_000);
      expect(await must(`/api/v1/admin/backups/${next.id}`, { token: adminToken }, 200)).toMatchObject({ status: "verified" });
      backupId = next.id;
    });
  }, 300_000);

  it("fails a restore, ends its maintenance, drops its side schema, and lets the next restore start", async () => {
    const { jobId } = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    // Each attempt began maintenance with its job marked running (one transaction), then made the side schema and was loading it.
    await killEveryAttempt({
      ref: jobId,
      attempts: 3,
      committed: async (tx) => {
        await tx.insert(tables.maintenance).values({ id: "restore", reason: "Restoring the backup", jobId, since: new Date() });
        // As the restore's beginning tells every process (CACHE_CHANNEL): none may go on assuming that there is no maintenance.
        await tx.execute(sql`select pg_notify('meridian_cache', ${JSON.stringify({ kind: "maintenance" })})`);
        await markedRunning(jobId, "load")(tx);
        await tx.execute(sql.raw(`create schema meridian_restore; create table meridian_restore.projects (like projects including all)`));
      },
    });
    // While the attempts lie dead, writes are refused and health says so. Health's status also carries the
    // object store's ping, which a loaded machine can take past its one second (503 "down", as in CI run 45),
    // so what is read here is its maintenance, whatever the status code.
    const health = (await call("/api/health")).body as { status: string };
    expect(health).toMatchObject({ maintenance: { active: true, jobId } });
    expect(health.status).not.toBe("ok");
    expect((await call("/projects", { method: "POST", token: owner.token, json: { name: "During" } })).status).toBe(503);

    expectEndedByKilledAttempts(await withWorker(() => jobToEnd<Job>(jobId, adminToken)), 3);
    expect((await call("/api/health")).body).toMatchObject({ maintenance: { active: false, jobId: null } });
    expect(await must("/api/v1/maintenance", {}, 200)).toMatchObject({ active: false });
    await must("/projects", { method: "POST", token: owner.token, json: { name: "After" } }, 201);
    const schemas = await deps().db.execute(sql`select nspname from pg_namespace where nspname in ('meridian_restore', 'meridian_previous')`);
    expect(schemas).toEqual([]);
    // The data is as it was, and another restore may start (not 409 RESTORE_RUNNING).
    const names = ((await must("/observations", { token: owner.token }, 200)) as { items: Array<{ name: string }> }).items.map((item) => item.name);
    expect(names).toEqual(["Kept"]);
    const again = (await must(`/api/v1/admin/backups/${backupId}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    await must(`/api/v1/admin/jobs/${again.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);

  it("fails a verification of a backup, which stays verified", async () => {
    const { jobId } = (await must(`/api/v1/admin/backups/${backupId}/verify`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    await killEveryAttempt({ ref: jobId, attempts: 3 });
    expectEndedByKilledAttempts(await withWorker(() => jobToEnd<Job>(jobId, adminToken)), 3);
    expect(await must(`/api/v1/admin/backups/${backupId}`, { token: adminToken }, 200)).toMatchObject({ status: "verified" });
  }, 300_000);

  it("fails a scan and its record, and lets the next scan of its kind start", async () => {
    const scan = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as { id: string };
    const jobs = (await must("/api/v1/admin/jobs?kind=integrity_scan", { token: adminToken }, 200)) as { items: Array<{ id: string; subjectId: string }> };
    const jobId = jobs.items.find((item) => item.subjectId === scan.id)!.id;
    await killEveryAttempt({ ref: scan.id, attempts: 5 });
    await withWorker(async () => {
      expectEndedByKilledAttempts(await jobToEnd<Job>(jobId, adminToken), 5);
      expect(await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)).toMatchObject({ status: "failed" });

      const next = (await must("/api/v1/admin/integrity/scans", { method: "POST", token: adminToken, json: { kind: "quick" } }, 202)) as { id: string };
      await until("the next scan to complete", async () => {
        const current = (await must(`/api/v1/admin/integrity/scans/${next.id}`, { token: adminToken }, 200)) as { status: string };
        return current.status === "completed";
      });
      scanId = next.id;
    });
  }, 300_000);

  it("fails a bulk repair, and lets the next one start", async () => {
    const repair = (path: string) => must(path, { method: "POST", token: adminToken, json: {} }, 202) as Promise<{ jobId: string }>;
    const { jobId } = await repair(`/api/v1/admin/integrity/scans/${scanId}/repair`);
    await killEveryAttempt({ ref: jobId, attempts: 5 });
    expectEndedByKilledAttempts(await withWorker(() => jobToEnd<Job>(jobId, adminToken)), 5);
    const next = await repair(`/api/v1/admin/integrity/scans/${scanId}/repair`);
    await must(`/api/v1/admin/jobs/${next.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);

  it("fails an observation cleanup, and lets the next one start", async () => {
    const cleanup = () =>
      must("/api/v1/admin/cleanup/observations", { method: "POST", token: adminToken, json: { dryRun: false } }, 202) as Promise<{ jobId: string }>;
    const { jobId } = await cleanup();
    await killEveryAttempt({ ref: jobId, attempts: 5 });
    expectEndedByKilledAttempts(await withWorker(() => jobToEnd<Job>(jobId, adminToken)), 5);
    const next = await cleanup();
    await must(`/api/v1/admin/jobs/${next.jobId}/cancel`, { method: "POST", token: adminToken }, 200);
  }, 300_000);
});
