import { backupManifestSchema, backupStatuses, backupTriggers, type BackupDoc, type StoredDocument } from "@meridian/db";
import { z } from "zod";

export const backupSchema = z
  .object({
    id: z.string(),
    createdAt: z.string().describe("When it was started (ISO 8601)"),
    finishedAt: z.string().nullable(),
    sizeBytes: z.number().int().nullable().describe("The compressed archive's size"),
    status: z.enum(backupStatuses).describe("running → completed (archive and manifest stored) → verified (read back and checked); or failed"),
    trigger: z.enum(backupTriggers).describe("Who asked: an admin, the schedule, or an observation cleanup (extension)"),
    verifiedAt: z.string().nullable(),
    error: z.string().nullable(),
    jobId: z
      .string()
      .nullable()
      .describe("The backup's own job (GET /api/v1/admin/jobs/{id}); its record is kept as long as the backup is, past JOBS_KEEP_DAYS"),
    manifest: backupManifestSchema.nullable().describe("Per-collection rows and SHA-256, schema and server versions, snapshot time"),
  })
  .meta({ id: "Backup" });
export type BackupView = z.infer<typeof backupSchema>;

export const backupSummarySchema = backupSchema.omit({ manifest: true }).meta({ id: "BackupSummary" });

export const presentBackup = (backup: StoredDocument<BackupDoc>): BackupView => ({
  id: backup.id,
  createdAt: backup.doc.startedAt,
  finishedAt: backup.doc.finishedAt,
  sizeBytes: backup.doc.sizeBytes,
  status: backup.doc.status,
  trigger: backup.doc.trigger,
  verifiedAt: backup.doc.verifiedAt,
  error: backup.doc.error,
  jobId: backup.doc.jobId,
  manifest: backup.doc.manifest,
});

export const backupCleanupInputSchema = z
  .strictObject({
    keepDays: z.number().int().min(0).max(3650).describe("Backups started more than this many days ago are deleted"),
    keepMin: z.number().int().min(0).max(1000).optional().describe("Keep at least this many of the newest usable backups, however old"),
    dryRun: z.boolean().optional().describe("Extension: list what would be deleted, delete nothing"),
  })
  .meta({ id: "BackupCleanup" });

export const backupCleanupResultSchema = z
  .object({
    deleted: z.array(z.object({ id: z.string(), createdAt: z.string(), sizeBytes: z.number().int().nullable() })),
    dryRun: z.boolean(),
  })
  .meta({ id: "BackupCleanupResult" });
export type BackupCleanupResult = z.infer<typeof backupCleanupResultSchema>;
