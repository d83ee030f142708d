import { backupsCollection, tables, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { z } from "zod";
import type { Actor } from "../../platform/actor";
import { lockDestructiveJobStarts } from "../../platform/jobs/destructive-jobs";
import { recordAudit } from "../audit";
import type { Deps } from "../../platform/deps";
import { deleteBackupObjects } from "./archive-io";
import type { BackupCleanupResult, backupCleanupInputSchema } from "./schemas";
import { inTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

const DAY_MS = 86_400_000;

/** The backups a queued or running restore is about to read (or reading). */
async function backupsBeingRestored(db: Executor): Promise<Set<string>> {
  const rows = await db.execute<{ id: string }>(
    sql`select subject_id as id from jobs where kind = ${trackedKind("backup_restore")} and status in ('queued', 'running') and subject_id is not null`,
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Deletes backups started more than `keepDays` days ago, except: the newest verified backup, the
 * `keepMin` newest usable (completed or verified) ones, any still running, and any a queued or
 * running restore is about to read. Before anything goes, the doomed backups are marked failed
 * under the lock a restore's start takes (and those a restore took meanwhile are spared), so no
 * restore can start on one. Objects go next, in DeleteObjects batches of at most 1,000 keys
 * (per-key errors retried), then the records, so an interrupted cleanup leaves failed records
 * whose objects are gone, and the next cleanup finishes it.
 */
export async function cleanUpBackups(options: {
  deps: Deps;
  actor: Actor | null;
  input: z.infer<typeof backupCleanupInputSchema>;
}): Promise<BackupCleanupResult> {
  const { deps, actor, input } = options;
  // Newest first by start time (ISO strings in UTC sort as the times do).
  const backups = await backupsCollection.findMany(deps.db, undefined, sql`${tables.backups.doc}->>'startedAt' desc`, 10_000);
  const newestVerified = backups.find((backup) => backup.doc.status === "verified");
  const usable = backups.filter((backup) => backup.doc.status === "verified" || backup.doc.status === "completed");
  const kept = new Set([...(newestVerified ? [newestVerified.id] : []), ...usable.slice(0, input.keepMin ?? 0).map((backup) => backup.id)]);
  const cutoff = deps.now().getTime() - input.keepDays * DAY_MS;
  const restoring = await backupsBeingRestored(deps.db);
  const candidates = backups.filter(
    (backup) => backup.doc.status !== "running" && !kept.has(backup.id) && !restoring.has(backup.id) && Date.parse(backup.doc.startedAt) < cutoff,
  );
  const listed = (list: typeof backups) => list.map((backup) => ({ id: backup.id, createdAt: backup.doc.startedAt, sizeBytes: backup.doc.sizeBytes }));
  if (input.dryRun || candidates.length === 0) return { deleted: listed(candidates), dryRun: Boolean(input.dryRun) };

  const doomed = await inTransaction(deps, async (t) => {
    await lockDestructiveJobStarts({ t });
    const restoringNow = await backupsBeingRestored(t.tx);
    const marked: typeof backups = [];
    for (const candidate of candidates) {
      if (restoringNow.has(candidate.id)) continue;
      const backup = await backupsCollection.update(t.tx, candidate.id, (doc) =>
        // Its own error, so that no read-back takes it for one it failed (and may verify again) while its objects go.
        doc.status === "running"
          ? doc
          : { ...doc, status: "failed", error: `Deleted by the backup retention cleanup${doc.error ? `; it had failed: ${doc.error}` : ""}`.slice(0, 2000) },
      );
      if (backup?.doc.status === "failed") marked.push(candidate);
    }
    return marked;
  });
  const deleted = listed(doomed);
  if (doomed.length === 0) return { deleted, dryRun: false };

  for (const backup of doomed) await deleteBackupObjects({ deps, objectKey: backup.doc.objectKey });
  await inTransaction(deps, async (t) => {
    await t.tx.execute(sql`delete from backups where id in ${doomed.map((backup) => backup.id)}`);
    await recordAudit({
      t,
      actor: actor?.kind === "user" ? actor : null,
      action: "backups.cleanup",
      target: { kind: "backups", id: "backups", name: "Backup retention" },
      scope: { kind: "system", id: "system", name: null },
      before: { keepDays: input.keepDays, keepMin: input.keepMin ?? null },
      after: { deleted },
    });
  });
  return { deleted, dryRun: false };
}
