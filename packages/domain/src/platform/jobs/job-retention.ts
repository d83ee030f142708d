import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../system/delete-in-batches";

/**
 * Removes the records of tracked jobs that finished (completed, or failed: a cancelled job is a
 * failed one) more than `keepDays` ago, in batches; a queued or running job stays whatever its age.
 * Every backup, restore, scan, repair, cleanup and announcement fan-out leaves one, so without this
 * the `jobs` table would grow for as long as the server runs.
 *
 * Age is the record's last change (its finish, or the release after it), never its start. What
 * still points at a job record keeps it, so that no reference dangles:
 * - a backup names its own job (`jobId`, shown with the backup): kept while the backup exists
 *   (backup retention bounds them); a backup's verifications and restores are not named by it;
 * - an integrity scan names its job the same way: kept while the scan exists (INTEGRITY_SCANS_KEEP
 *   bounds them); a scan restored from an archive may still name a record pruned since, so its
 *   readers show `jobId: null` for a record that is gone (`integrity/queries.ts`);
 * - the maintenance switch names the restore holding it (health and the banner link to its cancel);
 * - a graphile-worker job still running or with attempts left reports to it (a cancelled backup's
 *   attempt runs until its next report; a cleanup waiting for its backup is named in its payload).
 * A failed job whose release the minute sweep still retries (for 7 days after it changed) is never
 * this old: `JOBS_KEEP_DAYS` is at least 7. Other references are history and tolerate the absence:
 * the audit log names a cancelled job by id and kind only; `GET /api/v1/admin/jobs/{id}` answers
 * 404 NOT_FOUND for a pruned one, and the announcement fan-out, the scan run and the restore's swap
 * already go on without a record. No index beyond `jobs_created_at_idx` is needed: records
 * started before the cutoff are a range of it, and what stays there is bounded (queued and running
 * jobs, and those kept above: one per backup and per kept scan).
 */
export function pruneTrackedJobs(options: { db: Executor; now: Date; keepDays: number }): Promise<number> {
  const before = new Date(options.now.getTime() - options.keepDays * 86_400_000).toISOString();
  return deleteInBatches({
    db: options.db,
    table: "jobs",
    where: sql`status in ('completed', 'failed')
      and created_at < ${before}::timestamptz and updated_at < ${before}::timestamptz
      and not exists (select 1 from backups b where b.id = jobs.subject_id and b.doc->>'jobId' = jobs.id)
      and not exists (select 1 from integrity_scans s where s.id = jobs.subject_id and s.doc->>'jobId' = jobs.id)
      and not exists (select 1 from maintenance m where m.job_id = jobs.id)
      and jobs.id not in (
        select w.id from graphile_worker._private_jobs g
         cross join lateral (values (g.payload->>'jobId'), (g.payload->'then'->>'cleanupJobId')) w(id)
         where w.id is not null and (g.locked_at is not null or g.attempts < g.max_attempts))`,
  });
}
