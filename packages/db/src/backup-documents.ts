import { z } from "zod";
import { isoDate } from "./documents";

export const backupStatuses = ["running", "completed", "verified", "failed"] as const;
export const backupTriggers = ["manual", "scheduled", "cleanup"] as const;

/** One collection's part of an archive: its columns in COPY order, rows, and the SHA-256 of its COPY text. */
const backupCollectionManifestSchema = z.object({
  name: z.string(),
  columns: z.array(z.string()),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/**
 * What a backup holds, written beside its archive (`backups/<id>/manifest.json`) and in its
 * record: verification reads the archive back and recomputes every count and hash.
 */
export const backupManifestSchema = z.object({
  format: z.literal("meridian-backup/1"),
  /** The number of database migrations applied when it was taken; a restore refuses a newer one. */
  schemaVersion: z.number().int().nonnegative(),
  serverVersion: z.string(),
  /** When the snapshot was taken (every collection as of this one moment). */
  snapshotAt: isoDate,
  /** How the archive is compressed: brotli since the archive thread; gzip in backups taken before it, which still verify and restore. */
  compression: z.enum(["brotli", "gzip"]),
  collections: z.array(backupCollectionManifestSchema),
  archive: z.object({ key: z.string(), sizeBytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
});
export type BackupManifest = z.infer<typeof backupManifestSchema>;

export const backupDocSchema = z.object({
  status: z.enum(backupStatuses),
  trigger: z.enum(backupTriggers),
  /** The archive's object key; the manifest sits beside it. */
  objectKey: z.string(),
  sizeBytes: z.number().int().nonnegative().nullable(),
  manifest: backupManifestSchema.nullable(),
  jobId: z.string().nullable(),
  startedBy: z.string().nullable(),
  startedAt: isoDate,
  finishedAt: isoDate.nullable(),
  verifiedAt: isoDate.nullable(),
  error: z.string().nullable(),
});
export type BackupDoc = z.infer<typeof backupDocSchema>;
