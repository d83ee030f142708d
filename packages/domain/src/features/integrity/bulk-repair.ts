import { integrityIssuesCollection, jobsCollection, usersCollection, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { actorFromUser, type Actor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { addJob } from "../../platform/jobs/add-job";
import { JobEnded, recordJobStarted, reportJob } from "../../platform/jobs/tracked-jobs";
import { runExclusively } from "../../platform/system/exclusive-run";
import { getIntegrityScan } from "./queries";
import { repairIntegrityIssue } from "./repair";
import { inTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

const PAGE = 200;
const KEPT_SKIPS = 100;

/** The open auto-fixable issues of a scan a bulk repair works on: all of them, or those of `issueIds`. */
const candidates = (scanId: string, issueIds: string[] | null) =>
  sql`scan_id = ${scanId} and auto_fixable and doc->>'status' = 'open' ${issueIds ? sql`and id in ${issueIds}` : sql``}`;

/**
 * Starts a bulk repair as a job with progress (202 `{jobId}`): every open auto-fixable issue of a
 * finished scan, or the ones named. One at a time per scan (409 REPAIR_RUNNING).
 */
export async function startBulkRepair(options: { deps: Deps; actor: Actor; scanId: string; issueIds?: string[] }) {
  const { deps, actor, scanId } = options;
  const scan = await getIntegrityScan({ deps, scanId });
  if (scan.status !== "completed") throw new AppError("CONFLICT", "The scan has not finished; repair once it has");
  const issueIds = options.issueIds?.length ? [...new Set(options.issueIds)] : null;
  return inTransaction(deps, async (t) => {
    // Two requests at once: the lock makes the second see the first one's job.
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:integrity-repair:${scanId}`}))`);
    // The scan's row, held until the job is recorded: a prune (FOR UPDATE SKIP LOCKED) passes it over meanwhile and finds
    // the job once this commits; one that is removing the scan is waited for, and the scan is gone (404).
    const [held] = await t.tx.execute<{ id: string }>(sql`select id from integrity_scans where id = ${scanId} for key share`);
    if (!held) throw new AppError("NOT_FOUND", "No such scan");
    const [running] = await t.tx.execute<{ id: string }>(sql`
      select id from jobs where kind = ${trackedKind("integrity_repair")} and subject_id = ${scanId} and status in ('queued', 'running') limit 1`);
    if (running)
      throw new AppError("REPAIR_RUNNING", `A bulk repair of this scan is running: job ${running.id}`, { errors: [{ path: "jobId", message: running.id }] });
    const total = await countOf(t.tx, sql`${candidates(scanId, issueIds)}`);
    const startedBy = actor.kind === "user" ? actor.id : null;
    const job = await recordJobStarted({ t, kind: trackedKind("integrity_repair"), startedBy, subjectId: scanId, total, now: t.now() });
    await addJob({ t, name: "integrity_repair", payload: { jobId: job.id, scanId, issueIds } });
    return { jobId: job.id };
  });
}

async function countOf(db: Executor, where: ReturnType<typeof sql>) {
  const [row] = await db.execute<{ count: number }>(sql`select count(*)::int as count from integrity_issues where ${where}`);
  return row?.count ?? 0;
}

/**
 * The `integrity_repair` job: repairs the issues one by one through the single-issue repair, so
 * each is checked against its document, audited and verified. An issue whose document changed
 * is skipped and listed in the result. A retried job goes on with the issues still open; a
 * cancelled one stops before its next issue (the one under way finishes or rolls back whole).
 */
export async function runBulkRepair(options: { deps: Deps; jobId: string; scanId: string; issueIds: string[] | null }) {
  // The queued job and the CLI may both run it: the second waits, then finds it finished (two at
  // once would each count only its own repairs, and the last to end would overwrite the result).
  await runExclusively({ deps: options.deps, key: `meridian:integrity-repair-run:${options.jobId}`, work: () => repairAll(options) });
}

async function repairAll(options: { deps: Deps; jobId: string; scanId: string; issueIds: string[] | null }) {
  const { deps, jobId, scanId, issueIds } = options;
  const job = await jobsCollection.get(deps.db, jobId);
  if (!job || job.doc.status === "completed" || job.doc.status === "failed") return;
  const starter = job.doc.startedBy ? await usersCollection.get(deps.db, job.doc.startedBy) : undefined;
  const actor: Actor = starter ? actorFromUser({ user: starter }) : { kind: "system", id: "integrity-repair" };
  const total = job.doc.progress.total ?? (await countOf(deps.db, candidates(scanId, issueIds)));
  let done = total - (await countOf(deps.db, candidates(scanId, issueIds)));
  let repaired = 0;
  const skipped: Array<{ issueId: string; code: string; message: string }> = [];
  let skippedCount = 0;
  await reportJob({ deps, jobId, status: "running", progress: { done, total, stage: "repairing" } });
  let after = "";
  for (;;) {
    const page = await integrityIssuesCollection.findMany(deps.db, sql`${candidates(scanId, issueIds)} and id > ${after}`, sql`id`, PAGE);
    if (page.length === 0) break;
    for (const issue of page) {
      // A cancel stops the run before its next repair, not a page of repairs later, each audited as the admin's who cancelled.
      await stopIfEnded(deps, jobId);
      try {
        await repairIntegrityIssue({ deps, actor, issueId: issue.id });
        repaired += 1;
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 409) throw error;
        skippedCount += 1;
        if (skipped.length < KEPT_SKIPS) skipped.push({ issueId: issue.id, code: error.code, message: error.message });
      }
      done += 1;
    }
    after = page.at(-1)!.id;
    await reportJob({ deps, jobId, progress: { done, total, stage: "repairing" } });
  }
  await reportJob({
    deps,
    jobId,
    status: "completed",
    progress: { done, total, stage: "done" },
    result: { scanId, repaired, skipped: skippedCount, skippedIssues: skipped },
  });
}

/** Throws `JobEnded` once the job has failed (cancelled, or taken for abandoned). */
async function stopIfEnded(deps: Deps, jobId: string) {
  const job = await jobsCollection.get(deps.db, jobId);
  if (!job || job.doc.status === "failed") throw new JobEnded(jobId, job?.doc.error ?? "its record is gone");
}

export async function failBulkRepair({ deps, jobId, error }: { deps: Deps; jobId: string; error: string }) {
  await reportJob({ deps, jobId, status: "failed", error: error.slice(0, 500) });
}
