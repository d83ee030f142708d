import { loadEnv } from "@meridian/config";
import { backupsCollection, integrityScansCollection, jobsCollection, type JobDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "job-retention-admin@example.com", password: "job retention admin password" };
/** Overrides the default (90): records 40 days old go, 20 days old stay. */
const KEEP_DAYS = 30;
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", JOBS_KEEP_DAYS: String(KEEP_DAYS) }));
});
afterAll(() => server?.stop());
const { must, jobToEnd, scanToEnd } = jsonApi(() => server);
const db = () => server.server.runtime.deps.db;
const admin = (path: string, init: { method?: string } = {}) => server.request(path, { ...init, token: adminToken });

interface Job {
  id: string;
  status: string;
}
interface Backup {
  id: string;
  status: string;
  jobId: string | null;
}
interface Scan {
  id: string;
  status: string;
  jobId: string | null;
}

/** A job record as `recordJobStarted` and `reportJob` leave it (a failed one cancelled, its release done). */
const recordJob = (kind: string, status: JobDoc["status"]) => {
  const at = new Date().toISOString();
  const finished = status === "completed" || status === "failed";
  return jobsCollection.insert(db(), {
    kind,
    status,
    progress: { done: 0, total: null, stage: null },
    result: null,
    error: status === "failed" ? "Cancelled by a test" : null,
    startedBy: null,
    subjectId: null,
    startedAt: at,
    finishedAt: finished ? at : null,
    releasedAt: status === "failed" ? at : null,
  });
};
/** Makes job records `days` old: started, finished and last changed then. */
const age = (ids: string[], days: number) =>
  db().execute(
    sql`update jobs set created_at = now() - make_interval(days => ${days}), updated_at = now() - make_interval(days => ${days}) where id in ${ids}`,
  );
const jobsLeft = async (ids: string[]) => (await db().execute<{ id: string }>(sql`select id from jobs where id in ${ids}`)).map((row) => row.id).sort();
/** Runs the daily job now, through the worker, and waits until the records it must remove are gone. */
const pruneUntilGone = async (doomed: string[]) => {
  await db().execute(sql`select graphile_worker.add_job('prune_tracked_jobs', '{}'::json)`);
  await until("the old finished job records to be removed", async () => (await jobsLeft(doomed)).length === 0);
};
const jobStatus = async (id: string) => (await admin(`/api/v1/admin/jobs/${id}`)).status;

describe("JOBS_KEEP_DAYS", () => {
  it("defaults to 90 days, may be set, and is at least 7 (the sweep retries a failed job's release for 7 days)", () => {
    expect(loadEnv({}).JOBS_KEEP_DAYS).toBe(90);
    expect(loadEnv({ JOBS_KEEP_DAYS: "30" }).JOBS_KEEP_DAYS).toBe(30);
    expect(() => loadEnv({ JOBS_KEEP_DAYS: "6" })).toThrow(/JOBS_KEEP_DAYS/);
  });
});

describe("tracked job retention", () => {
  let backup: Backup;
  let scan: Scan;
  let verifyJobId: string;
  const doomed: Record<string, string> = {};
  const kept: Record<string, string> = {};
  let carrierId: string;

  it("the daily prune_tracked_jobs removes finished records older than JOBS_KEEP_DAYS, never a queued or running one nor one still named", async () => {
    // Real jobs: a backup (which names its job), its verification (which nothing names) and an integrity scan (which names its job).
    expect((await admin("/api/v1/admin/backups", { method: "POST" })).status).toBe(202);
    backup = await until(
      "the backup to be verified",
      async () => {
        const [latest] = ((await must("/api/v1/admin/backups", { token: adminToken }, 200)) as { items: Backup[] }).items;
        return latest?.status === "verified" ? latest : undefined;
      },
      { timeoutMs: 60_000 },
    );
    ({ jobId: verifyJobId } = (await must(`/api/v1/admin/backups/${backup.id}/verify`, { method: "POST", token: adminToken }, 202)) as { jobId: string });
    expect(await jobToEnd<Job>(verifyJobId, adminToken)).toMatchObject({ status: "completed" });
    expect(await jobToEnd<Job>(backup.jobId!, adminToken)).toMatchObject({ status: "completed" });
    scan = await scanToEnd<Scan>({ kind: "quick" }, adminToken);
    expect(scan).toMatchObject({ status: "completed", jobId: expect.any(String) });

    doomed.verification = verifyJobId;
    doomed.completed = (await recordJob("observation_cleanup", "completed")).id;
    doomed.cancelled = (await recordJob("integrity_repair", "failed")).id;
    kept.recent = (await recordJob("observation_cleanup", "completed")).id;
    // An announcement's fan-out is never taken for abandoned by the minute sweep, so these stay queued and running however old.
    kept.queued = (await recordJob("announcement_emails", "queued")).id;
    kept.running = (await recordJob("announcement_emails", "running")).id;
    kept.backup = backup.jobId!;
    kept.scan = scan.jobId!;
    // A restore whose maintenance is still on (the health check and the banner name its job, to cancel it).
    kept.maintenance = (await recordJob("backup_restore", "failed")).id;
    await db().execute(sql`insert into maintenance (id, reason, job_id) values ('restore', 'A test restore', ${kept.maintenance})`);
    // A cancelled job whose attempt may still run (and report to its record).
    kept.attempt = (await recordJob("backup_verify", "failed")).id;
    const [carrier] = await db().execute<{ id: string }>(
      sql`select id::text from graphile_worker.add_job('test_held_job', json_build_object('jobId', ${kept.attempt}::text), run_at := now() + interval '1 day')`,
    );
    carrierId = carrier!.id;
    try {
      await age([...Object.values(doomed), ...Object.values(kept).filter((id) => id !== kept.recent)], 40);
      await age([kept.recent], 20);

      await pruneUntilGone(Object.values(doomed));
      expect(await jobsLeft(Object.values(kept))).toEqual(Object.values(kept).sort());
      expect(((await must("/api/v1/maintenance", {}, 200)) as { jobId: string | null }).jobId).toBe(kept.maintenance);
    } finally {
      await db().execute(sql`delete from maintenance where id = 'restore'`);
    }
  });

  it("afterwards the jobs list, a pruned job and the pages that name a job answer cleanly", async () => {
    const listed = (await must("/api/v1/admin/jobs?limit=100", { token: adminToken }, 200)) as { items: Job[] };
    const ids = listed.items.map((job) => job.id);
    for (const id of Object.values(doomed)) expect(ids).not.toContain(id);
    for (const id of Object.values(kept)) expect(ids).toContain(id);
    await expectProblem(await admin(`/api/v1/admin/jobs/${doomed.verification}`), 404, "NOT_FOUND");
    await expectProblem(await admin(`/api/v1/admin/jobs/${doomed.cancelled}/cancel`, { method: "POST" }), 404, "NOT_FOUND");
    // The backup whose verification was pruned, and the scan: both answer, and the job each names is there.
    expect(await must(`/api/v1/admin/backups/${backup.id}`, { token: adminToken }, 200)).toMatchObject({ id: backup.id, jobId: backup.jobId });
    expect(await jobStatus(backup.jobId!)).toBe(200);
    expect(await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)).toMatchObject({ id: scan.id, jobId: scan.jobId });
    expect(await jobStatus(scan.jobId!)).toBe(200);
  });

  it("a record goes at the next prune once nothing names it; a scan brought back naming a pruned job shows jobId null", async () => {
    const storedScan = (await integrityScansCollection.get(db(), scan.id))!;
    await backupsCollection.remove(db(), backup.id);
    await integrityScansCollection.remove(db(), scan.id);
    await db().execute(sql`delete from graphile_worker._private_jobs where id = ${carrierId}::bigint`);
    await pruneUntilGone([kept.backup!, kept.scan!, kept.maintenance!, kept.attempt!]);
    expect(await jobsLeft([kept.recent!, kept.queued!, kept.running!])).toEqual([kept.recent!, kept.queued!, kept.running!].sort());
    await expectProblem(await admin(`/api/v1/admin/jobs/${scan.jobId}`), 404, "NOT_FOUND");

    // A restore brings scans back but not jobs: the scan names a job record that is gone.
    await integrityScansCollection.insert(db(), storedScan.doc, scan.id);
    expect(storedScan.doc.jobId).toBe(scan.jobId);
    expect(await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200)).toMatchObject({ id: scan.id, jobId: null });
    const scans = (await must("/api/v1/admin/integrity/scans?limit=50", { token: adminToken }, 200)) as { items: Scan[] };
    expect(scans.items.find((item) => item.id === scan.id)).toMatchObject({ jobId: null });
    expect((await admin("/api/v1/admin/backups")).status).toBe(200);
  });
});
