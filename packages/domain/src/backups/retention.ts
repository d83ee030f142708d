import { backupsCollection, tables } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { z } from "zod";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";
import type { Deps } from "../deps";
import { deleteBackupObjects } from "./archive-io";
import type { BackupCleanupResult, backupCleanupInputSchema } from "./schemas";
import { inTransaction } from "../transaction";

const DAY_MS = 86_400_000;

/**
 * Deletes backups started more than `keepDays` days ago, except: the newest verified backup, the
 * `keepMin` newest usable (completed or verified) ones, and any still running. Objects go first,
 * in DeleteObjects batches of at most 1,000 keys (per-key errors retried), then the records, so
 * an interrupted cleanup leaves records whose objects are gone, and the next cleanup finishes it.
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
  const doomed = backups.filter((backup) => backup.doc.status !== "running" && !kept.has(backup.id) && Date.parse(backup.doc.startedAt) < cutoff);
  const deleted = doomed.map((backup) => ({ id: backup.id, createdAt: backup.doc.startedAt, sizeBytes: backup.doc.sizeBytes }));
  if (input.dryRun || doomed.length === 0) return { deleted, dryRun: Boolean(input.dryRun) };

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
