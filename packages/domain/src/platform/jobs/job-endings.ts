import { jobsCollection, type Executor, type JobDoc, type StoredDocument } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../actor";
import { recordAudit } from "../record-audit";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { registeredJobs, type DefinedJob, type JobRelease } from "./define-job";
import { killedAttemptsReason } from "./job-task";
import { getJob, reportJobIn, reportJob, type JobView } from "./tracked-jobs";
import { inTransaction } from "../transaction";

/**
 * How a tracked job ends when its work will not finish: its attempts were used up (a killed attempt
 * never reports, so its own failure handler never runs), its graphile-worker job is gone, or a
 * server admin cancelled it. Each job's definition names what it holds while it runs (`tracked.release`),
 * given back here; the job's record says `failed` with the reason, and `releasedAt` once what it held is given back.
 */
const trackedJobs = () => registeredJobs().filter((job): job is DefinedJob & { tracked: NonNullable<DefinedJob["tracked"]> } => job.tracked !== undefined);
const releaseOf = (kind: string): JobRelease | undefined => trackedJobs().find((job) => job.kind === kind)?.tracked.release;
const kindsWhere = (has: (tracked: NonNullable<DefinedJob["tracked"]>) => unknown) =>
  trackedJobs()
    .filter((job) => has(job.tracked))
    .map((job) => job.kind);
/** `in ()` is no SQL: a list that may be empty gets a kind no job has. */
const orNone = (kinds: string[]) => (kinds.length > 0 ? kinds : [""]);

/**
 * Whether graphile-worker's job `g` does a tracked job's work: it carries the job's id (a cleanup
 * waiting for its backup is carried by the backup's job), or, for a scan, the scan's id.
 */
const doesWorkOf = (job: { id: SQL; kind: SQL; subjectId: SQL }) =>
  sql`(g.payload->>'jobId' = ${job.id} or g.payload->'then'->>'cleanupJobId' = ${job.id}${sql.join(
    trackedJobs().flatMap(({ kind, tracked }) =>
      tracked.subjectField ? [sql` or (${job.kind} = ${kind} and g.payload->>${tracked.subjectField} = ${job.subjectId})`] : [],
    ),
  )})`;
const ofRow = { id: sql.raw("j.id"), kind: sql.raw("j.kind"), subjectId: sql.raw("j.subject_id") };
const ofDocument = (job: StoredDocument<JobDoc>) => ({
  id: sql`${job.id}::text`,
  kind: sql`${job.doc.kind}::text`,
  subjectId: sql`${job.doc.subjectId}::text`,
});

/** Fails a job for good (unless it finished already) and gives back what it held; safe to repeat. */
export async function endJobForGood(options: { deps: Deps; jobId: string; reason: string; payload?: Record<string, unknown> | null }) {
  const { deps, jobId, reason } = options;
  const before = await jobsCollection.get(deps.db, jobId);
  if (!before || before.doc.status === "completed") return;
  await reportJob({ deps, jobId, status: "failed", error: reason.slice(0, 500) });
  const job = (await jobsCollection.get(deps.db, jobId))!;
  if (job.doc.releasedAt) return;
  if ((await releaseOf(job.doc.kind)?.({ deps, job, reason, payload: options.payload ?? null })) === "after the attempt") return;
  await jobsCollection.update(deps.db, jobId, (doc) => ({ ...doc, releasedAt: deps.now().toISOString() }));
}

/**
 * Jobs whose status lives with what they work on rather than in `jobs` (`giveUp` in their definitions): how that status ends when
 * every attempt of the graphile-worker job ended without finishing (killed, or thrown past the job's own handling), which
 * graphile-worker then leaves in its table for good.
 */
const givingUp = () => registeredJobs().filter((job) => job.giveUp !== undefined);

/**
 * Ends what each of the graphile-worker jobs above left unfinished, and removes the job: unless
 * another job of the same task and payload may still run (a newer attempt queued under its key).
 */
async function endUntrackedJobs(deps: Deps): Promise<void> {
  const rows = await deps.db.execute<{
    id: string;
    task: string;
    payload: Record<string, unknown>;
    attempts: number;
    max_attempts: number;
    last_error: string | null;
    superseded: boolean;
  }>(sql`
    select g.id::text, k.identifier as task, g.payload::jsonb as payload, g.attempts, g.max_attempts, g.last_error,
           exists (select 1 from graphile_worker._private_jobs n
                    where n.task_id = g.task_id and n.id <> g.id and n.payload::jsonb = g.payload::jsonb
                      and (n.attempts < n.max_attempts or n.locked_at is not null)) as superseded
      from graphile_worker._private_jobs g join graphile_worker._private_tasks k on k.id = g.task_id
     where k.identifier in ${orNone(givingUp().map((job) => job.name))} and g.attempts >= g.max_attempts and g.locked_at is null
     limit 100`);
  for (const row of rows) {
    if (!row.superseded) {
      const reason = killedAttemptsReason({ attempts: row.attempts, maxAttempts: row.max_attempts, lastError: row.last_error });
      await givingUp().find((job) => job.name === row.task)!.giveUp!({ deps, jobId: row.id, payload: row.payload, reason });
    }
    await deps.db.execute(sql`
      delete from graphile_worker._private_jobs where id = ${row.id}::bigint and locked_at is null and attempts >= max_attempts`);
  }
}

/**
 * The minute sweep (and each recovery of dead workers): every tracked job still queued or running
 * whose graphile-worker job has used up its attempts and is not running, or is gone, fails with a
 * reason and gives back what it held; and a failed job whose release was cut short (a cancel killed
 * halfway), or waited for a running attempt (a backup's), gets it now, for 7 days after its record last
 * changed (`JOBS_KEEP_DAYS`, at least 7, keeps the record that long). Jobs without a tracked record end
 * the same way (their `giveUp`: a file's delivery, an email, a frame's analysis).
 */
export async function reconcileTrackedJobs(options: { deps: Deps }): Promise<string[]> {
  const { deps } = options;
  await endUntrackedJobs(deps);
  const rows = await deps.db.execute<{
    id: string;
    status: string;
    payload: Record<string, unknown> | null;
    attempts: number | null;
    max_attempts: number | null;
    last_error: string | null;
  }>(sql`
    select j.id, j.status, g.payload::jsonb as payload, g.attempts, g.max_attempts, g.last_error
      from jobs j
      left join lateral (
        select g.payload, g.attempts, g.max_attempts, g.last_error, g.locked_at from graphile_worker._private_jobs g
         where ${doesWorkOf(ofRow)}
         order by (g.attempts < g.max_attempts or g.locked_at is not null) desc, g.id desc limit 1) g on true
     where (j.status in ('queued', 'running') and j.kind not in ${orNone(kindsWhere((tracked) => tracked.selfHealing))}
            and (g.attempts is null or (g.attempts >= g.max_attempts and g.locked_at is null)))
        or (j.status = 'failed' and j.doc->>'releasedAt' is null and j.kind in ${orNone(kindsWhere((tracked) => tracked.release))}
            and j.updated_at > now() - interval '7 days'
            and (j.kind not in ${orNone(kindsWhere((tracked) => tracked.releaseAfterAttempt))} or g.locked_at is null))
     limit 100`);
  for (const row of rows) {
    const reason =
      row.status === "failed"
        ? "released after it ended"
        : row.attempts === null
          ? "Its background job is gone (removed or never queued), so it will not finish"
          : `Every attempt (${row.attempts} of ${row.max_attempts}) ended without finishing; the last: ` +
            (row.last_error ?? "its worker stopped (killed or lost)");
    await endJobForGood({ deps, jobId: row.id, reason, payload: row.payload });
    deps.logger.warn({ jobId: row.id, reason }, "a long job will not finish: failed it and released what it held");
  }
  return rows.map((row) => row.id);
}

/**
 * A server admin ends a queued or running job (409 JOB_FINISHED once it ended): in one
 * transaction the job fails naming who cancelled it, its graphile-worker jobs stop (removed while
 * waiting; a running attempt gets no retry and stops at its next progress report, `JobEnded`), and
 * the audit log records it; then what it held is given back. A backup-first cleanup ends the
 * backup it waits for with it (failed, objects removed), so no backup is left running.
 */
export async function cancelJob(options: { deps: Deps; actor: Actor; jobId: string }): Promise<JobView> {
  const { deps, actor, jobId } = options;
  const who =
    actor.kind === "user"
      ? `${actor.name} (${actor.email})`
      : actor.kind === "system" && actor.id === "cli"
        ? "an administrator at the command line (pnpm admin jobs cancel)"
        : `${actor.kind} ${actor.id}`;
  const reason = `Cancelled by ${who}`;
  const cancelled = await inTransaction(deps, async (t) => {
    const job = await jobsCollection.get(t.tx, jobId, { forUpdate: true });
    if (!job) throw new AppError("NOT_FOUND", "No such job");
    if (job.doc.status === "completed" || job.doc.status === "failed")
      throw new AppError("JOB_FINISHED", `Job ${jobId} already ${job.doc.status} at ${job.doc.finishedAt ?? "an unknown time"}`);
    const [graphile] = await t.tx.execute<{ payload: Record<string, unknown> | null }>(sql`
      select g.payload::jsonb as payload from graphile_worker._private_jobs g where ${doesWorkOf(ofDocument(job))} limit 1`);
    // A backup-first cleanup's backup, not verified yet, was asked for only as the cleanup's first step: it ends with it (its
    // queued attempt is removed below with the cleanup's, so left as it is it would stay running and refuse the next backup).
    const backups = await t.tx.execute<{ job_id: string; payload: Record<string, unknown> }>(sql`
      select distinct on (g.payload->>'jobId') g.payload->>'jobId' as job_id, g.payload::jsonb as payload
        from graphile_worker._private_jobs g join jobs b on b.id = g.payload->>'jobId'
       where g.payload->'then'->>'cleanupJobId' = ${jobId} and b.status in ('queued', 'running')
         and b.kind in ${orNone(kindsWhere((tracked) => tracked.carriesFollowUp))}
       order by g.payload->>'jobId', g.id desc`);
    await stopGraphileJobs(t.tx, job);
    await reportJobIn({ t, jobId, status: "failed", error: reason });
    for (const backup of backups) await reportJobIn({ t, jobId: backup.job_id, status: "failed", error: `${reason}, with the cleanup it was for` });
    await recordAudit({
      t,
      actor: actor.kind === "user" ? { id: actor.id, name: actor.name } : null,
      action: "job.cancelled",
      target: { kind: "job", id: job.id, name: job.doc.kind },
      scope: { kind: "system", id: "system", name: null },
      before: { status: job.doc.status, progress: job.doc.progress },
      after: { status: "failed", error: reason, ...(backups.length > 0 ? { endedWith: backups.map((backup) => backup.job_id) } : {}) },
    });
    return { payload: graphile?.payload ?? null, backups };
  });
  await endJobForGood({ deps, jobId, reason, payload: cancelled.payload });
  for (const backup of cancelled.backups)
    await endJobForGood({ deps, jobId: backup.job_id, reason: `${reason}, with the cleanup it was for`, payload: backup.payload });
  return getJob({ deps, jobId });
}

/** Waiting jobs are removed; a running attempt keeps its lock but may not be retried after it. */
async function stopGraphileJobs(db: Executor, job: StoredDocument<JobDoc>) {
  const matches = doesWorkOf(ofDocument(job));
  await db.execute(sql`delete from graphile_worker._private_jobs g where ${matches} and g.locked_at is null`);
  await db.execute(sql`update graphile_worker._private_jobs g set max_attempts = greatest(g.attempts, 1) where ${matches} and g.locked_at is not null`);
}
