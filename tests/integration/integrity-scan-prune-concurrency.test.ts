import { integrityIssuesCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { copyRow } from "../support/row-copies";
import { holdRows, holdTable, lockWaiters } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * `prune_integrity_scans` removes finished scans past the newest INTEGRITY_SCANS_KEEP in batches, each batch's scans
 * locked FOR UPDATE SKIP LOCKED: two prunes at once take different scans, and a scan another transaction holds is
 * left for a later prune. These run the job through the server's own worker, two at once, and stage them with holds.
 */
const ADMIN = { email: "scan-prune-concurrency-admin@example.com", password: "scan prune concurrency admin password" };
const KEEP = 2;
/** More than two of the prune's batches (20 scans each), so that each of two prunes at once gets a full batch. */
const OLD_COPIES = 44;
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all", INTEGRITY_SCANS_KEEP: String(KEEP) }));
});
afterAll(() => server?.stop());
const { must, call, scanToEnd, jobToEnd } = jsonApi(() => server);
const db = () => server.server.runtime.deps.db;

interface Scan {
  id: string;
  status: string;
}

/** An open, auto-fixable issue of the scan, as a scan writes one: an observation stuck assigned (long gone since). */
const stuckIssue = (scanId: string) =>
  integrityIssuesCollection.insert(db(), {
    scanId,
    severity: "warning",
    type: "status",
    collection: "observations",
    documentId: "obs_gone_since_the_scan",
    code: "STUCK_ASSIGNED",
    message: "Assigned for 99 hours (more than 24)",
    autoFixable: true,
    fix: { description: "Return it to pending, so dispatch sends it again", changes: [{ field: "status", from: "assigned", to: "pending" }] },
    status: "open",
    documentUpdatedAt: null,
  });

/**
 * Old scans to prune: one made by a scan, with an issue, and `OLD_COPIES` copies of it (same age), each with a copy of
 * the issue. Answers their ids, the issue's first.
 */
async function oldScans() {
  const source = await scanToEnd<Scan>({ kind: "quick" }, adminToken);
  await stuckIssue(source.id);
  const sqlClient = server.server.runtime.deps.sql;
  await copyRow(sqlClient, { table: "integrity_scans", id: source.id, copies: OLD_COPIES });
  const [issue] = await sqlClient<Array<{ id: string }>>`select id from integrity_issues where scan_id = ${source.id}`;
  await copyRow(sqlClient, { table: "integrity_issues", id: issue!.id, copies: OLD_COPIES, vary: { column: "scan_id", field: "scanId" } });
  return [source.id, ...Array.from({ length: OLD_COPIES }, (_, index) => `${source.id}-copy-${index + 1}`)];
}

const scanIds = async () => (await db().execute<{ id: string }>(sql`select id from integrity_scans order by id`)).map((row) => row.id);
const issuesOf = async (ids: string[]) =>
  (await db().execute<{ count: number }>(sql`select count(*)::int as count from integrity_issues where scan_id in ${ids}`))[0]!.count;

/** Queues `count` prune jobs at once, as the schedule would on two workers. */
async function queuePrunes(count: number) {
  for (let index = 0; index < count; index += 1) await db().execute(sql`select graphile_worker.add_job('prune_integrity_scans', '{}'::json)`);
}

/** Waits until no prune job is left (a job that ends well is removed); one that failed stays with its error, and fails the test. */
async function prunesDone() {
  const jobs = await until("the prune jobs to end", async () => {
    const rows = await db().execute<{ error: string | null }>(sql`
      select j.last_error as error from graphile_worker._private_jobs j
        join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'prune_integrity_scans'`);
    return rows.length === 0 || rows.some((row) => row.error !== null) ? rows : undefined;
  });
  expect(jobs).toEqual([]);
}

describe("two integrity scan prunes at once", () => {
  it("remove every old scan once with its issues, keep the newest and the one under a running bulk repair, and neither fails", async () => {
    const underRepair = await scanToEnd<Scan>({ kind: "quick" }, adminToken);
    const repairIssue = await stuckIssue(underRepair.id);
    const old = await oldScans();
    const kept = [await scanToEnd<Scan>({ kind: "quick" }, adminToken), await scanToEnd<Scan>({ kind: "quick" }, adminToken)];

    // The bulk repair runs, and stays running at its issue, which the test holds.
    const issueHold = await holdRows(server.databaseUrl, `select id from integrity_issues where id = '${repairIssue.id}' for update`);
    try {
      const { jobId } = (await must(`/api/v1/admin/integrity/scans/${underRepair.id}/repair`, { method: "POST", token: adminToken }, 202)) as {
        jobId: string;
      };
      await until("the bulk repair to wait at its issue", () => issueHold.waiting());
      expect(await must(`/api/v1/admin/jobs/${jobId}`, { token: adminToken }, 200)).toMatchObject({ status: "running" });

      // Both prunes lock a batch of their own, then wait to delete its issues: neither has removed anything yet. (SHARE
      // mode holds off writes to the table, not the row lock the repair waits for.)
      const issuesHold = await holdRows(server.databaseUrl, "lock table integrity_issues in share mode");
      try {
        await queuePrunes(2);
        await until("both prunes to wait at the issues, each with its batch locked", async () => (await issuesHold.waiters()) >= 2);
      } finally {
        await issuesHold.release();
      }
      await prunesDone();
      await issueHold.release();
      expect(await jobToEnd<{ status: string }>(jobId, adminToken)).toMatchObject({ status: "completed" });
    } finally {
      await issueHold.release();
    }

    expect(await scanIds()).toEqual([underRepair.id, ...kept.map((scan) => scan.id)].sort());
    expect(await issuesOf(old)).toBe(0);
    expect(await issuesOf([underRepair.id])).toBe(1);
    for (const scan of [underRepair, ...kept]) await must(`/api/v1/admin/integrity/scans/${scan.id}`, { token: adminToken }, 200);
  });

  it("never remove a scan whose bulk repair is being started meanwhile: the repair's start holds it", async () => {
    // The oldest of all, so that a prune that did not see it held would take it in its first batch.
    const underRepair = await scanToEnd<Scan>({ kind: "quick" }, adminToken);
    await stuckIssue(underRepair.id);
    const old = await oldScans();
    const kept = [await scanToEnd<Scan>({ kind: "quick" }, adminToken), await scanToEnd<Scan>({ kind: "quick" }, adminToken)];

    // The repair's start counts the scan's issues, and waits there (its job not recorded yet) while two prunes lock their batches.
    const issuesHold = await holdTable(server.databaseUrl, "integrity_issues");
    let started: Awaited<ReturnType<typeof call>>;
    try {
      const start = call(`/api/v1/admin/integrity/scans/${underRepair.id}/repair`, { method: "POST", token: adminToken });
      await until("the repair's start to wait at the issues", () => issuesHold.waiting());
      await queuePrunes(2);
      await until("both prunes to wait at the issues too, each with its batch locked", async () => (await issuesHold.waiters()) >= 3);
      await issuesHold.release();
      started = await start;
    } finally {
      await issuesHold.release();
    }
    await prunesDone();

    expect(started.status).toBe(202);
    expect(await jobToEnd<{ status: string; result: unknown }>(started.body.jobId, adminToken)).toMatchObject({
      status: "completed",
      result: { scanId: underRepair.id, repaired: 0, skipped: 1 },
    });
    expect(await scanIds()).toEqual([underRepair.id, ...kept.map((scan) => scan.id)].sort());
    expect(await issuesOf(old)).toBe(0);
    expect(await issuesOf([underRepair.id])).toBe(1);
  });

  it("refuse a bulk repair asked for while a prune removes its scan: 404, and no repair is recorded", async () => {
    const doomed = await scanToEnd<Scan>({ kind: "quick" }, adminToken);
    await stuckIssue(doomed.id);
    for (let index = 0; index < KEEP; index += 1) await scanToEnd<Scan>({ kind: "quick" }, adminToken);

    // The prune has locked the scan and waits to delete its issues when the repair is asked for.
    const issuesHold = await holdTable(server.databaseUrl, "integrity_issues");
    let started: Awaited<ReturnType<typeof call>>;
    try {
      await queuePrunes(1);
      await until("the prune to wait at the issues, the scan locked", () => issuesHold.waiting());
      const start = call(`/api/v1/admin/integrity/scans/${doomed.id}/repair`, { method: "POST", token: adminToken });
      await until("the repair's start to wait too", async () => (await lockWaiters(server.server.runtime.deps.sql)) >= 2);
      await issuesHold.release();
      started = await start;
    } finally {
      await issuesHold.release();
    }
    await prunesDone();

    expect({ status: started.status, code: started.body.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(started.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const repairs = await db().execute(sql`select id from jobs where kind = 'integrity_repair' and subject_id = ${doomed.id}`);
    expect(repairs).toEqual([]);
    expect((await call(`/api/v1/admin/integrity/scans/${doomed.id}`, { token: adminToken })).status).toBe(404);
  });
});
