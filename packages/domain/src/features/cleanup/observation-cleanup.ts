import { jobsCollection, usersCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Actor } from "../../platform/actor";
import { recordAudit } from "../audit";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { addJob } from "../../platform/jobs/add-job";
import { recordJobStarted, reportJob, reportJobIn, type JobReport } from "../../platform/jobs/tracked-jobs";
import { startBackupIn } from "../backups";
import { lockDestructiveJobStarts } from "../../platform/jobs/destructive-jobs";
import { runExclusively } from "../../platform/system/exclusive-run";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

const OBJECT_PREFIX = "observations/";
const RECORD_BATCH = 1000;

export const observationCleanupSummarySchema = z
  .object({
    observations: z.number().int().describe("Observation documents (with their histories)"),
    files: z.number().int().describe("File records"),
    storageObjects: z.number().int().describe("Objects under observations/ in storage"),
  })
  .meta({ id: "ObservationCleanupSummary" });
export type ObservationCleanupSummary = z.infer<typeof observationCleanupSummarySchema>;

export const observationCleanupInputSchema = z
  .strictObject({
    dryRun: z.boolean().describe("true: count what would go, delete nothing"),
    createBackup: z.boolean().optional().describe("Back up first and start only once the backup is verified"),
  })
  .meta({ id: "ObservationCleanup" });

/**
 * The database's clock, to the microsecond, as an ISO instant: the cutoff is compared with
 * `created_at`, which the database stamps, so it comes from the same clock (never the server's).
 */
async function databaseNow(db: Pick<Deps["db"], "execute">): Promise<string> {
  const [row] = await db.execute<{ now: string }>(sql`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as now`);
  return row!.now;
}

/**
 * The dry run: what a cleanup would delete now (spec: every observation document, every file
 * record, every image file in storage; observatories, users, projects, keys and sessions stay),
 * by the database's clock, as a cleanup started now marks it.
 */
export async function previewObservationCleanup(deps: Deps): Promise<ObservationCleanupSummary> {
  return countCleanup(deps, await databaseNow(deps.db));
}

/**
 * What a cleanup of this cutoff deletes: the observations created at or before it, every file
 * record but those of observations created after it (dangling ones included), and every object
 * under observations/ but theirs.
 */
async function countCleanup(deps: Deps, until: string): Promise<ObservationCleanupSummary> {
  const [counts] = await deps.db.execute<{ observations: number; files: number }>(sql`
    select (select count(*)::int from observations where created_at <= ${until}::timestamptz) as observations,
           (select count(*)::int from files f where not exists (
              select 1 from observations o where o.id = f.observation_id and o.created_at > ${until}::timestamptz)) as files`);
  let storageObjects = 0;
  for await (const page of deps.storage.list(OBJECT_PREFIX)) {
    const kept = await keptObservations(deps, page, until);
    storageObjects += page.filter((object) => !kept.has(observationOfKey(object.key))).length;
  }
  return { observations: counts?.observations ?? 0, files: counts?.files ?? 0, storageObjects };
}

const observationOfKey = (key: string) => key.split("/")[1] ?? "";

/** Of the observations a page of objects belongs to, those created after the cutoff (whose objects stay). */
async function keptObservations(deps: Deps, page: ReadonlyArray<{ key: string }>, cutoff: string) {
  if (page.length === 0) return new Set<string>();
  const observationIds = [...new Set(page.map((object) => observationOfKey(object.key)))];
  const rows = await deps.db.execute<{ id: string }>(sql`select id from observations where id in ${observationIds} and created_at > ${cutoff}::timestamptz`);
  return new Set(rows.map((row) => row.id));
}

/**
 * Starts the cleanup as a job (202 `{jobId}`); one at a time (409 CLEANUP_RUNNING), and never
 * beside a restore (409 RESTORE_RUNNING while one is queued or running). What goes is marked now:
 * the observations that exist at this moment (created at or before the cutoff, the database's
 * time as this starts, carried by the job), their histories, files and objects. Observations
 * created while it runs stay. With `createBackup`, the backup is recorded here too, after the
 * cutoff: it holds everything the cleanup deletes.
 */
export async function startObservationCleanup(options: { deps: Deps; actor: Actor; createBackup?: boolean }) {
  const { deps, actor } = options;
  const actorId = actor.kind === "user" ? actor.id : null;
  return inTransaction(deps, async (t) => {
    await lockDestructiveJobStarts({ t });
    const [other] = await t.tx.execute<{ id: string; kind: string }>(sql`
      select id, kind from jobs where kind in (${trackedKind("observation_cleanup")}, ${trackedKind("backup_restore")}) and status in ('queued', 'running')
       order by kind = ${trackedKind("observation_cleanup")} desc limit 1`);
    const errors = other ? [{ path: "jobId", message: other.id }] : [];
    if (other?.kind === trackedKind("observation_cleanup")) throw new AppError("CLEANUP_RUNNING", `A cleanup is running: job ${other.id}`, { errors });
    if (other) throw new AppError("RESTORE_RUNNING", `A restore is queued or running: job ${other.id}; start the cleanup once it has ended`, { errors });
    const cutoff = await databaseNow(t.tx);
    const job = await recordJobStarted({
      t,
      kind: trackedKind("observation_cleanup"),
      startedBy: actorId,
      now: t.now(),
      stage: options.createBackup ? "backup" : undefined,
    });
    // With a backup first, the backup's job queues the cleanup once the backup is verified.
    const backup = options.createBackup ? await startBackupIn({ t, actor, trigger: "cleanup", then: { cleanupJobId: job.id, cutoff, actorId } }) : null;
    if (!backup) await addJob({ t, name: "observation_cleanup", payload: { jobId: job.id, cutoff, actorId, backupId: null } });
    return { jobId: job.id, cutoff, backup };
  });
}

/**
 * The last stage: delete what is left under observations/ but the objects of observations created
 * after the cutoff, in DeleteObjects batches of up to 1,000 (a page of the listing): objects whose
 * records a batch deleted but whose own deletion a stop cut short, and objects no record names.
 * Returns how many went.
 */
export async function deleteCleanupObjects(options: { deps: Deps; cutoff: string; onPage?: (deleted: number) => Promise<void> }) {
  const { deps, cutoff, onPage } = options;
  let deleted = 0;
  for await (const page of deps.storage.list(OBJECT_PREFIX)) {
    if (page.length === 0) continue;
    const kept = await keptObservations(deps, page, cutoff);
    const keys = page.map((object) => object.key).filter((key) => !kept.has(observationOfKey(key)));
    if (keys.length > 0) await deps.storage.deleteMany(keys);
    deleted += keys.length;
    await onPage?.(deleted);
  }
  return deleted;
}

interface CleanupCounts {
  observations: number;
  files: number;
  storageObjects: number;
}

type Progress = (counts: CleanupCounts) => JobReport;

/**
 * Deletes these observations' records (histories, file records, the observations) in the caller's
 * transaction and records the counts on the job, which throws `JobEnded` (rolling the batch back)
 * once the job was cancelled. Returns the counts so far and the object keys the file records named.
 */
async function deleteRecordsOf(options: { t: InTransaction; ids: string[]; jobId: string; counts: CleanupCounts; progress: Progress }) {
  const { t, ids, counts } = options;
  const files = await t.tx.execute<{ object_key: string }>(sql`delete from files where observation_id in ${ids} returning object_key`);
  await t.tx.execute(sql`delete from observation_history where observation_id in ${ids}`);
  await t.tx.execute(sql`delete from observations where id in ${ids}`);
  const next = { ...counts, files: counts.files + files.length, observations: counts.observations + ids.length };
  await reportJobIn({ t, jobId: options.jobId, ...options.progress(next) });
  return { next, keys: files.map((row) => row.object_key) };
}

/** Objects records name outside observations/, which no listing of it finds: deleted as their records go, uncounted as the dry run does. */
async function deleteUnlistedKeys(deps: Deps, keys: string[]) {
  const unlisted = [...new Set(keys.filter((key) => !key.startsWith(OBJECT_PREFIX)))];
  for (let start = 0; start < unlisted.length; start += RECORD_BATCH) await deps.storage.deleteMany(unlisted.slice(start, start + RECORD_BATCH));
}

/**
 * The records, batch by batch, each batch's records before its objects: one transaction deletes a
 * batch's observations, histories and file records (and records the counts on the job), and only
 * once it has committed are the objects deleted. A stop anywhere leaves at worst objects no
 * record names (found by the last stage of a retry, or by an integrity scan), never a record
 * naming a deleted object. The job's row is read in each batch's transaction after its
 * observations are locked, so a cancelled cleanup stops at its next batch without deleting it.
 *
 * First the batches follow the listing of observations/ (a page of up to 1,000 keys each: the
 * doomed observations it names), and the page's objects but those of observations created after
 * the cutoff go after their records: objects are counted as storage listed them, the way the dry
 * run counts, so a record whose object is lost counts nothing and two records of one object count
 * it once. Then the observations no object named, in batches of RECORD_BATCH.
 */
async function deleteCleanupRecords(options: { deps: Deps; jobId: string; cutoff: string; counts: CleanupCounts; progress: Progress }) {
  const { deps, jobId, cutoff, counts } = options;
  for await (const page of deps.storage.list(OBJECT_PREFIX)) {
    if (page.length === 0) continue;
    const named = [...new Set(page.map((object) => observationOfKey(object.key)))];
    const deleted = await inTransaction(deps, async (t) => {
      const batch = await t.tx.execute<{ id: string }>(sql`
        select id from observations where id in ${named} and created_at <= ${cutoff}::timestamptz order by id for update`);
      if (batch.length === 0) return undefined;
      return deleteRecordsOf({ t, ids: batch.map((row) => row.id), jobId, counts, progress: options.progress });
    });
    if (deleted) Object.assign(counts, deleted.next);
    // Keys of an observation that goes on into the next page are deleted there, once that page is listed.
    const kept = await keptObservations(deps, page, cutoff);
    const keys = page.map((object) => object.key).filter((key) => !kept.has(observationOfKey(key)));
    if (keys.length > 0) await deps.storage.deleteMany(keys);
    await deleteUnlistedKeys(deps, deleted?.keys ?? []);
    counts.storageObjects += keys.length;
    await reportJob({ deps, jobId, ...options.progress(counts) });
  }
  for (;;) {
    const deleted = await inTransaction(deps, async (t) => {
      const batch = await t.tx.execute<{ id: string }>(sql`
        select id from observations where created_at <= ${cutoff}::timestamptz order by id limit ${RECORD_BATCH} for update`);
      if (batch.length === 0) return undefined;
      return deleteRecordsOf({ t, ids: batch.map((row) => row.id), jobId, counts, progress: options.progress });
    });
    if (!deleted) break;
    Object.assign(counts, deleted.next);
    // Their keys under observations/ (an object stored after the listing passed it) go in the last stage, counted there.
    await deleteUnlistedKeys(deps, deleted.keys);
    await reportJob({ deps, jobId, ...options.progress(counts) });
  }
  // File records of observations that were already gone (dangling ones) go too, before the last stage deletes their objects.
  const orphans = await deps.db.execute(sql`delete from files f where not exists (select 1 from observations o where o.id = f.observation_id) returning id`);
  counts.files += orphans.length;
}

/**
 * The `observation_cleanup` job, in a crash-safe order: per batch the records, then their objects,
 * and last whatever is left under observations/. A killed or cancelled run leaves no record naming
 * a deleted object; a retry finishes what a killed one left, and a scan afterwards finds nothing
 * dangling. The counts carry over retries in the job's result.
 */
export async function runObservationCleanup(options: { deps: Deps; jobId: string; cutoff: string; actorId: string | null; backupId?: string | null }) {
  // The queued job and the CLI may both run it: the second waits, then finds it finished.
  return runExclusively({ deps: options.deps, key: `meridian:observation-cleanup:${options.jobId}`, work: () => cleanUpObservations(options) });
}

async function cleanUpObservations(options: { deps: Deps; jobId: string; cutoff: string; actorId: string | null; backupId?: string | null }) {
  const { deps, jobId, cutoff } = options;
  const job = await jobsCollection.get(deps.db, jobId);
  if (!job || job.doc.status === "completed" || job.doc.status === "failed") return;
  const earlier = (job.doc.result ?? {}) as Partial<ObservationCleanupSummary>;
  // What this cleanup deletes, by its own cutoff: what its dry run would have said when it started, less what went since.
  const planned = await countCleanup(deps, cutoff);
  const total = planned.storageObjects + planned.observations;
  const summary = { observations: earlier.observations ?? 0, files: earlier.files ?? 0, storageObjects: earlier.storageObjects ?? 0 };
  const start = { ...summary };
  await reportJob({ deps, jobId, status: "running", progress: { done: 0, total, stage: "records" } });
  await deleteCleanupRecords({
    deps,
    jobId,
    cutoff,
    counts: summary,
    progress: (counts) => ({
      progress: { done: counts.observations - start.observations + counts.storageObjects - start.storageObjects, total, stage: "records" },
      result: { ...counts },
    }),
  });
  const objectsBefore = summary.storageObjects;
  summary.storageObjects += await deleteCleanupObjects({
    deps,
    cutoff,
    onPage: async (deleted) => {
      const done = summary.observations - start.observations + objectsBefore + deleted - start.storageObjects;
      await reportJob({ deps, jobId, progress: { done, total, stage: "objects" }, result: { ...summary, storageObjects: objectsBefore + deleted } });
    },
  });
  const starter = options.actorId ? await usersCollection.get(deps.db, options.actorId) : undefined;
  await inTransaction(deps, async (t) => {
    await recordAudit({
      t,
      actor: starter ? { id: starter.id, name: starter.doc.name } : null,
      action: "observations.cleanup",
      target: { kind: "observations", id: jobId, name: "Observation data cleanup" },
      scope: { kind: "system", id: "system", name: null },
      before: { cutoff, startedBy: options.actorId },
      after: summary,
    });
  });
  await reportJob({
    deps,
    jobId,
    status: "completed",
    progress: { done: total, total, stage: "done" },
    result: { ...summary, backupId: options.backupId ?? null },
  });
  return summary;
}

export async function failObservationCleanup({ deps, jobId, error }: { deps: Deps; jobId: string; error: string }) {
  await reportJob({ deps, jobId, status: "failed", error: error.slice(0, 500) });
}
