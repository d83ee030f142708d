import { backupsCollection, tables, type BackupDoc, type StoredDocument } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Actor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { addJob } from "../../platform/jobs/add-job";
import { lockDestructiveJobStarts } from "../../platform/jobs/destructive-jobs";
import { recordJobStarted, reportJob } from "../../platform/jobs/tracked-jobs";
import { notifySystemEvent } from "../notifications";
import { runExclusively } from "../../platform/system/exclusive-run";
import { readServerSettings } from "../system";
import { ARCHIVED_COLLECTIONS, archiveSizeOf, deleteBackupObjects, manifestKeyOf, readArchiveBack } from "./archive-io";
import { BACKUP_READERS } from "./archive-readers";
import { writeArchive } from "./archive-writer";
import { cleanUpBackups } from "./retention";
import { presentBackup, type BackupView } from "./schemas";
import { findServerAdmins } from "../users";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

/** An observation cleanup waiting for this backup: it starts once the backup is verified. */
export interface ThenCleanup {
  cleanupJobId: string;
  cutoff: string;
  actorId: string | null;
}

const startedByOf = (actor: Actor | null) => (actor?.kind === "user" ? actor.id : null);

/**
 * Starts a backup as a job (the `backup` record starts `running`); one at a time across every
 * process (409 BACKUP_RUNNING names the running one), and never while a restore is queued or
 * running (409 RESTORE_RUNNING), which refuses to start while a backup runs in turn.
 */
export async function startBackup(options: { deps: Deps; actor: Actor | null; trigger: BackupDoc["trigger"]; then?: ThenCleanup }): Promise<BackupView> {
  const { deps, ...start } = options;
  return inTransaction(deps, (t) => startBackupIn({ t, ...start }));
}

/** The same, in the caller's transaction (an observation cleanup starts its backup with its own record). */
export async function startBackupIn(options: {
  t: Pick<InTransaction, "tx" | "now">;
  actor: Actor | null;
  trigger: BackupDoc["trigger"];
  then?: ThenCleanup;
}): Promise<BackupView> {
  const { t, actor } = options;
  // The destructive jobs' lock first (a cleanup holds it when it starts its backup), so the two locks are always taken in one order.
  await lockDestructiveJobStarts({ t });
  await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:backup-start'))`);
  const [running] = await t.tx.execute<{ id: string }>(sql`select id from backups where status = 'running' limit 1`);
  if (running) throw new AppError("BACKUP_RUNNING", `A backup is running: ${running.id}`, { errors: [{ path: "backupId", message: running.id }] });
  // A restore's swap moves every live table aside: a snapshot's readers that meet it either wait on it (or deadlock with it)
  // or, opening a table by name after it, read the restored table as of a snapshot older than its rows, so as empty.
  const [restore] = await t.tx.execute<{ id: string; status: string }>(
    sql`select id, status from jobs where kind = ${trackedKind("backup_restore")} and status in ('queued', 'running') limit 1`,
  );
  if (restore)
    throw new AppError("RESTORE_RUNNING", `A restore is ${restore.status}: job ${restore.id}; back up once it has ended`, {
      errors: [{ path: "jobId", message: restore.id }],
    });
  const id = backupsCollection.newId();
  const now = t.now();
  const job = await recordJobStarted({ t, kind: trackedKind("backup_create"), startedBy: startedByOf(actor), subjectId: id, now });
  const backup = await backupsCollection.insert(
    t.tx,
    {
      status: "running",
      trigger: options.trigger,
      objectKey: `backups/${id}/manifest.json`,
      sizeBytes: null,
      manifest: null,
      jobId: job.id,
      startedBy: startedByOf(actor),
      startedAt: now.toISOString(),
      finishedAt: null,
      verifiedAt: null,
      error: null,
    },
    id,
  );
  await addJob({ t, name: "backup_create", payload: { jobId: job.id, backupId: id, then: options.then ?? null } });
  return presentBackup(backup);
}

export async function getBackup(options: { deps: Deps; backupId: string }): Promise<BackupView> {
  const backup = await backupsCollection.get(options.deps.db, options.backupId);
  if (!backup) throw new AppError("NOT_FOUND", "No such backup");
  return presentBackup(backup);
}

/** Every backup, newest first (a server keeps tens, not thousands: retention deletes the old ones). */
export async function listBackups(options: { deps: Deps; limit?: number }) {
  const backups = await backupsCollection.findMany(options.deps.db, undefined, sql`${tables.backups.createdAt} desc`, options.limit ?? 500);
  return { items: backups.map((backup) => presentBackup(backup)) };
}

/** How a read-back that found differences words the backup's error. */
const VERIFICATION_FAILED = "Verification failed: ";

/**
 * Whether the read-back decides the backup's status: a usable one's, and one an earlier read-back
 * failed (a read cut short, a part since mended: an archive that reads back whole is verified).
 * A backup that failed otherwise (its job cancelled or abandoned, taken by retention) stays
 * failed: its objects are deleted, or being deleted.
 */
const readBackDecides = (doc: BackupDoc) =>
  doc.status === "completed" || doc.status === "verified" || (doc.status === "failed" && (doc.error ?? "").startsWith(VERIFICATION_FAILED));

/** Reads the archive back against the manifest and records the outcome: verified, or failed with what differs. */
async function verifyStoredBackup(deps: Deps, backup: StoredDocument<BackupDoc>, jobId: string) {
  const manifest = backup.doc.manifest;
  const total = manifest ? archiveSizeOf(manifest) : null;
  await reportJob({ deps, jobId, status: "running", progress: { done: 0, total, stage: "verify" } });
  const problems = manifest
    ? await readArchiveBack({
        deps,
        manifest,
        lanes: BACKUP_READERS,
        onBytes: async (bytes) => void (await reportJob({ deps, jobId, progress: { done: bytes, total, stage: "verify" } })),
      })
    : ["the backup has no manifest"];
  const now = deps.now().toISOString();
  const found = problems.length === 0 ? null : `${VERIFICATION_FAILED}${problems.join("; ")}`.slice(0, 2000);
  const checked = (await backupsCollection.update(deps.db, backup.id, (doc) =>
    !readBackDecides(doc) ? doc : found === null ? { ...doc, status: "verified", verifiedAt: now, error: null } : { ...doc, status: "failed", error: found },
  ))!;
  return { backup: checked, found };
}

/**
 * The `backup_create` job: archive and manifest (running → completed), then the read-back
 * (→ verified). A retry after a crash starts the archive over; a finished stage is not redone.
 */
export async function runBackup(options: { deps: Deps; jobId: string; backupId: string; then: ThenCleanup | null }) {
  const { deps, jobId, backupId } = options;
  return runExclusively({
    deps,
    key: `meridian:backup:${backupId}`,
    work: async () => {
      let backup = await backupsCollection.get(deps.db, backupId);
      if (!backup) return;
      if (backup.doc.status === "running") {
        const [estimate] = await deps.db.execute<{ rows: number }>(sql`
          select coalesce(sum(greatest(reltuples, 0)), 0)::bigint::int as rows from pg_class
          where relnamespace = current_schema()::regnamespace and relkind = 'r' and relname in ${ARCHIVED_COLLECTIONS}`);
        const total = estimate?.rows ?? null;
        await reportJob({ deps, jobId, status: "running", progress: { done: 0, total, stage: "archive" } });
        const manifest = await writeArchive({
          deps,
          manifestKey: manifestKeyOf(backup.doc.objectKey),
          onRows: async (rows) => {
            await reportJob({ deps, jobId, progress: { done: rows, total: total === null ? null : Math.max(total, rows), stage: "archive" } });
          },
        });
        await deps.storage.put(manifestKeyOf(backup.doc.objectKey), Buffer.from(JSON.stringify(manifest, null, 2)), { contentType: "application/json" });
        // A backup failed meanwhile (cancelled, or taken for abandoned) stays failed.
        backup = (await backupsCollection.update(deps.db, backupId, (doc) =>
          doc.status === "running" ? { ...doc, status: "completed", sizeBytes: manifest.sizeBytes, manifest, finishedAt: deps.now().toISOString() } : doc,
        ))!;
      }
      if (backup.doc.status === "completed") backup = (await verifyStoredBackup(deps, backup, jobId)).backup;
      await finishBackupJob(deps, backup, jobId, options.then);
    },
  });
}

async function finishBackupJob(deps: Deps, backup: StoredDocument<BackupDoc>, jobId: string, then: ThenCleanup | null) {
  const result = { backupId: backup.id, status: backup.doc.status, sizeBytes: backup.doc.sizeBytes };
  if (backup.doc.status !== "verified") {
    await reportJob({ deps, jobId, status: "failed", error: backup.doc.error ?? "The backup failed", result });
    await afterBackupFailed(deps, backup, then);
    return;
  }
  if (then)
    await inTransaction(deps, async (t) => {
      await addJob({
        t,
        name: "observation_cleanup",
        payload: { jobId: then.cleanupJobId, cutoff: then.cutoff, actorId: then.actorId, backupId: backup.id },
      });
    });
  if (backup.doc.trigger === "scheduled") {
    const settings = await readServerSettings(deps.db);
    await cleanUpBackups({ deps, actor: null, input: { keepDays: settings.backupKeepDays, keepMin: settings.backupKeepMin } });
  }
  await reportJob({ deps, jobId, status: "completed", progress: { stage: "done" }, result });
}

/**
 * A backup whose job used up its attempts, was cancelled or abandoned: failed, its objects removed,
 * a waiting cleanup failed, admins told of a scheduled one. Only a backup still running or completed
 * (not yet verified) moves; a verified one, or one failed already, is left as it is.
 */
export async function failBackup(options: { deps: Deps; jobId: string; backupId: string; then: ThenCleanup | null; error: string }) {
  const { deps } = options;
  let moved = false;
  const backup = await backupsCollection.update(deps.db, options.backupId, (doc) => {
    moved = doc.status === "running" || doc.status === "completed";
    return moved ? { ...doc, status: "failed", error: options.error.slice(0, 2000) } : doc;
  });
  await reportJob({ deps, jobId: options.jobId, status: "failed", error: options.error.slice(0, 500) });
  if (backup && moved) await afterBackupFailed(deps, backup, options.then);
}

async function afterBackupFailed(deps: Deps, backup: StoredDocument<BackupDoc>, then: ThenCleanup | null) {
  await deleteBackupObjects({ deps, objectKey: backup.doc.objectKey }).catch(() => undefined);
  if (then)
    await reportJob({
      deps,
      jobId: then.cleanupJobId,
      status: "failed",
      error: `The backup before the cleanup failed, so nothing was deleted: ${backup.doc.error ?? ""}`.slice(0, 500),
    });
  if (backup.doc.trigger !== "scheduled") return;
  await inTransaction(deps, async (t) => {
    const admins = await findServerAdmins(t.tx);
    await notifySystemEvent({
      t,
      users: admins,
      event: {
        kind: "backup_failed",
        subject: "A scheduled backup failed",
        lines: [
          `The scheduled backup ${backup.id} started at ${backup.doc.startedAt} failed.`,
          backup.doc.error ?? "",
          "Check storage and the worker's log, then start one under System → Backup Management.",
        ],
        path: "/admin/backups",
        priority: 1,
      },
    });
  });
}

/** Reads a finished backup back against its manifest, as a job (202 `{jobId}`). */
export async function startBackupVerification(options: { deps: Deps; actor: Actor | null; backupId: string }) {
  const { deps, actor, backupId } = options;
  return inTransaction(deps, async (t) => {
    const backup = await backupsCollection.get(t.tx, backupId, { forUpdate: true });
    if (!backup) throw new AppError("NOT_FOUND", "No such backup");
    if (!backup.doc.manifest) throw new AppError("BACKUP_NOT_READY", `Backup ${backupId} is ${backup.doc.status} and has no manifest to verify against`);
    const job = await recordJobStarted({ t, kind: trackedKind("backup_verify"), startedBy: startedByOf(actor), subjectId: backupId, now: t.now() });
    await addJob({ t, name: "backup_verify", payload: { jobId: job.id, backupId } });
    return { jobId: job.id };
  });
}

/**
 * The `backup_verify` job: verified when everything matches, failed (with what differs) otherwise.
 * A backup an earlier read-back failed is verified again once it reads back whole.
 */
export async function runBackupVerification(options: { deps: Deps; jobId: string; backupId: string }) {
  const { deps, jobId, backupId } = options;
  return runExclusively({
    deps,
    key: `meridian:backup:${backupId}`,
    work: async () => {
      const backup = await backupsCollection.get(deps.db, backupId);
      if (!backup) {
        await reportJob({ deps, jobId, status: "failed", error: "The backup was deleted" });
        return;
      }
      const { backup: checked, found } = await verifyStoredBackup(deps, backup, jobId);
      const result = { backupId, status: checked.doc.status, sizeBytes: checked.doc.sizeBytes };
      if (checked.doc.status === "verified") await reportJob({ deps, jobId, status: "completed", progress: { stage: "done" }, result });
      else {
        // This read-back's own finding; a backup that stays failed for another reason says which.
        const error = found ?? `The backup failed earlier and stays failed: ${checked.doc.error ?? "unknown"}`;
        await reportJob({ deps, jobId, status: "failed", error: error.slice(0, 500), result });
      }
    },
  });
}
