import { z } from "zod";
import { isoDate } from "./documents";

export const backupStatuses = ["running", "completed", "verified", "failed"] as const;
export const backupTriggers = ["manual", "scheduled", "cleanup"] as const;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** One collection's part of an archive: its columns in COPY order, rows, and the SHA-256 of its COPY text. */
const backupCollectionManifestSchema = z.object({
  name: z.string(),
  columns: z.array(z.string()),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: sha256Hex,
});

/** A section of a version 2 part: a whole collection, or the rows in one range of its heap's blocks. */
const backupPartSectionSchema = backupCollectionManifestSchema.extend({
  /** Heap blocks `from` (inclusive) to `to` (exclusive; null: to the table's end) as of the snapshot; absent: the whole collection. */
  blocks: z.object({ from: z.number().int().nonnegative(), to: z.number().int().positive().nullable() }).optional(),
});

/** One object of a version 2 archive: its own brotli stream of sections, framed as a version 1 archive is. */
const backupPartSchema = z.object({
  key: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  sha256: sha256Hex,
  sections: z.array(backupPartSectionSchema),
});

const manifestCommon = {
  /** The number of database migrations applied when it was taken; a restore refuses a newer one. */
  schemaVersion: z.number().int().nonnegative(),
  serverVersion: z.string(),
  /** When the snapshot was taken (every collection as of this one moment). */
  snapshotAt: isoDate,
};

/**
 * What a backup holds, written beside its archive (`backups/<id>/manifest.json`) and in its
 * record: verification reads the archive back and recomputes every count and hash. Version 1:
 * one archive object, every collection in turn. Version 2 (ADR 23): parts read and loaded in
 * parallel, each with its own size, SHA-256 and sections; both verify and restore.
 */
const backupManifestV1Schema = z.object({
  format: z.literal("meridian-backup/1"),
  ...manifestCommon,
  /** How the archive is compressed: brotli since the archive thread; gzip in backups taken before it, which still verify and restore. */
  compression: z.enum(["brotli", "gzip"]),
  collections: z.array(backupCollectionManifestSchema),
  archive: z.object({ key: z.string(), sizeBytes: z.number().int().nonnegative(), sha256: sha256Hex }),
});

const backupManifestV2Schema = z.object({
  format: z.literal("meridian-backup/2"),
  ...manifestCommon,
  compression: z.literal("brotli"),
  /** Each collection's totals over its sections; the SHA-256s are the sections'. */
  collections: z.array(backupCollectionManifestSchema.omit({ sha256: true }).extend({ sections: z.number().int().positive() })),
  /** The parts' sizes summed. */
  sizeBytes: z.number().int().nonnegative(),
  parts: z.array(backupPartSchema).min(1),
});

export const backupManifestSchema = z.discriminatedUnion("format", [backupManifestV1Schema, backupManifestV2Schema]);
export type BackupManifest = z.infer<typeof backupManifestSchema>;
export type BackupManifestV1 = z.infer<typeof backupManifestV1Schema>;
export type BackupManifestV2 = z.infer<typeof backupManifestV2Schema>;
export type BackupPart = z.infer<typeof backupPartSchema>;

export const backupDocSchema = z.object({
  status: z.enum(backupStatuses),
  trigger: z.enum(backupTriggers),
  /** Version 1: the archive's object key, the manifest beside it; version 2: the manifest's, its parts beside it. */
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
