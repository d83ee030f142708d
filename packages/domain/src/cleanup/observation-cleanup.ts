import { jobsCollection, usersCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { addJob } from "../jobs/add-job";
import { recordJobStarted, reportJob } from "../jobs/tracked-jobs";
import { startBackupIn } from "../backups/backups";
import { runExclusively } from "../system/exclusive-run";
import { inTransaction } from "../transaction";

export const OBSERVATION_CLEANUP_JOB_KIND = "observation_cleanup";
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
 * The dry run: what a cleanup would delete now (spec: every observation document, every file
 * record, every image file in storage; observatories, users, projects, keys and sessions stay).
 */
export async function previewObservationCleanup(deps: Deps): Promise<ObservationCleanupSummary> {
  const [counts] = await deps.db.execute<{ observations: number; files: number }>(sql`
    select (select count(*)::int from observations) as observations, (select count(*)::int from files) as files`);
  let storageObjects = 0;
  for await (const page of deps.storage.list(OBJECT_PREFIX)) storageObjects += page.length;
  return { observations: counts?.observations ?? 0, files: counts?.files ?? 0, storageObjects };
}

/**
 * Starts the cleanup as a job (202 `{jobId}`); one at a time (409 CLEANUP_RUNNING). What goes is
 * marked now: the observations that exist at this moment (created at or before the cutoff), their
 * histories, files and objects. Observations created while it runs stay.
 */
export async function startObservationCleanup(options: { deps: Deps; actor: Actor; createBackup?: boolean }) {
  const { deps, actor } = options;
  const actorId = actor.kind === "user" ? actor.id : null;
  return inTransaction(deps, async (t) => {
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:observation-cleanup'))`);
    const [running] = await t.tx.execute<{ id: string }>(sql`
      select id from jobs where kind = ${OBSERVATION_CLEANUP_JOB_KIND} and status in ('queued', 'running') limit 1`);
    if (running) throw new AppError("CLEANUP_RUNNING", `A cleanup is running: job ${running.id}`, { errors: [{ path: "jobId", message: running.id }] });
    const now = t.now();
    const cutoff = now.toISOString();
    const job = await recordJobStarted({ t, kind: OBSERVATION_CLEANUP_JOB_KIND, startedBy: actorId, now, stage: options.createBackup ? "backup" : undefined });
    // With a backup first, the backup's job queues the cleanup once the backup is verified.
    if (options.createBackup) await startBackupIn({ t, actor, trigger: "cleanup", then: { cleanupJobId: job.id, cutoff, actorId } });
    else await addJob({ t, name: "observation_cleanup", payload: { jobId: job.id, cutoff, actorId, backupId: null }, maxAttempts: 5 });
    return { jobId: job.id, cutoff };
  });
}

/**
 * Stage one: delete the marked observations' objects under observations/, in DeleteObjects
 * batches of up to 1,000 (a page of the listing), per-key errors retried. An object of an
 * observation created after the cutoff stays. Returns how many went.
 */
export async function deleteCleanupObjects(options: { deps: Deps; cutoff: string; onPage?: (deleted: number) => Promise<void> }) {
  const { deps, cutoff, onPage } = options;
  let deleted = 0;
  for await (const page of deps.storage.list(OBJECT_PREFIX)) {
    if (page.length === 0) continue;
    const observationIds = [...new Set(page.map((object) => object.key.split("/")[1] ?? ""))];
    const kept = new Set(
      (await deps.db.execute<{ id: string }>(sql`select id from observations where id in ${observationIds} and created_at > ${cutoff}::timestamptz`)).map(
        (row) => row.id,
      ),
    );
    const keys = page.map((object) => object.key).filter((key) => !kept.has(key.split("/")[1] ?? ""));
    if (keys.length > 0) await deps.storage.deleteMany(keys);
    deleted += keys.length;
    await onPage?.(deleted);
  }
  return deleted;
}

/** Stage two: the records, children first, in batches; each batch is its own transaction. */
async function deleteCleanupRecords(deps: Deps, cutoff: string, onBatch: (counts: { files: number; observations: number }) => Promise<void>) {
  const counts = { files: 0, observations: 0 };
  for (;;) {
    const done = await inTransaction(deps, async (t) => {
      const batch = await t.tx.execute<{ id: string }>(sql`
        select id from observations where created_at <= ${cutoff}::timestamptz order by id limit ${RECORD_BATCH} for update`);
      if (batch.length === 0) return true;
      const ids = batch.map((row) => row.id);
      const files = await t.tx.execute(sql`delete from files where observation_id in ${ids} returning id`);
      await t.tx.execute(sql`delete from observation_history where observation_id in ${ids}`);
      await t.tx.execute(sql`delete from observations where id in ${ids}`);
      counts.files += files.length;
      counts.observations += ids.length;
      return false;
    });
    if (done) break;
    await onBatch(counts);
  }
  // File records of observations that were already gone (dangling ones) go too.
  const orphans = await deps.db.execute(sql`delete from files f where not exists (select 1 from observations o where o.id = f.observation_id) returning id`);
  counts.files += orphans.length;
  return counts;
}

/**
 * The `observation_cleanup` job, in a crash-safe order: objects first, then records. A killed run
 * is retried and finishes: what was deleted is not found again, and a scan afterwards finds
 * nothing dangling. The counts carry over retries in the job's result.
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
  const planned = await previewObservationCleanup(deps);
  const total = planned.storageObjects + planned.observations;
  const summary = { observations: earlier.observations ?? 0, files: earlier.files ?? 0, storageObjects: earlier.storageObjects ?? 0 };
  await reportJob({ deps, jobId, status: "running", progress: { done: 0, total, stage: "objects" } });
  const objectsBefore = summary.storageObjects;
  summary.storageObjects += await deleteCleanupObjects({
    deps,
    cutoff,
    onPage: async (deleted) => {
      await reportJob({ deps, jobId, progress: { done: deleted, total, stage: "objects" }, result: { ...summary, storageObjects: objectsBefore + deleted } });
    },
  });
  const filesBefore = summary.files;
  const observationsBefore = summary.observations;
  const records = await deleteCleanupRecords(deps, cutoff, async (counts) => {
    const result = { ...summary, files: filesBefore + counts.files, observations: observationsBefore + counts.observations };
    await reportJob({ deps, jobId, progress: { done: planned.storageObjects + counts.observations, total, stage: "records" }, result });
  });
  summary.files += records.files;
  summary.observations += records.observations;
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
