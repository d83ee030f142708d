import { z } from "zod";
import { isoDate } from "./documents";

export const integrityScanKinds = ["quick", "full"] as const;
export const integrityIssueTypes = ["structure", "status", "reference", "file", "data_quality"] as const;
export const integritySeverities = ["critical", "warning", "info"] as const;
const integrityScanStatuses = ["queued", "running", "completed", "failed"] as const;
/** Who or what started a scan: an administrator in the app or the API, the schedule, `pnpm admin scan`, or a restore. */
export const integrityScanTriggers = ["manual", "scheduled", "cli", "restore"] as const;
export type IntegrityScanTrigger = (typeof integrityScanTriggers)[number];

export const integrityScanOptionsSchema = z.object({
  collections: z.array(z.string()),
  deepScan: z.boolean(),
  checkStorage: z.boolean(),
  checkHealth: z.boolean(),
  /** null: every document. */
  limitPerCollection: z.number().int().positive().nullable(),
  includeTestData: z.boolean(),
  /** With checkStorage: read every object back and compare its SHA-256, at most this many bytes a second (absent: off). */
  checksumBytesPerSecond: z.number().int().positive().nullable().optional(),
});
export type IntegrityScanOptions = z.infer<typeof integrityScanOptionsSchema>;

/** A scan: what it looks at, how far it got (its checkpoint survives a crash) and what it found. */
export const integrityScanDocSchema = z.object({
  kind: z.enum(integrityScanKinds),
  options: integrityScanOptionsSchema,
  status: z.enum(integrityScanStatuses),
  progress: z.object({ collection: z.string().nullable(), scanned: z.number().int(), total: z.number().int().nullable() }),
  summary: z.object({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  /** Where a retried job resumes: the collection under way and the last document id done. */
  checkpoint: z.object({ collection: z.string(), afterId: z.string().nullable() }).nullable(),
  jobId: z.string().nullable(),
  /** The run that owns the scan now: a run that finds another one took over stops at its next write. */
  runId: z.string().optional(),
  startedBy: z.string().nullable(),
  /** Absent on scans from before it was recorded: those were started by `startedBy`, or else by the schedule. */
  trigger: z.enum(integrityScanTriggers).optional(),
  startedAt: isoDate,
  finishedAt: isoDate.nullable(),
  error: z.string().nullable(),
});
export type IntegrityScanDoc = z.infer<typeof integrityScanDocSchema>;

export const integrityIssueDocSchema = z.object({
  scanId: z.string(),
  severity: z.enum(integritySeverities),
  type: z.enum(integrityIssueTypes),
  collection: z.string(),
  documentId: z.string(),
  code: z.string(),
  message: z.string(),
  autoFixable: z.boolean(),
  /**
   * Exactly what a repair would change; null when nothing can be repaired automatically. An issue
   * with a fix that is not auto-fixable is repaired one at a time by a person, never in bulk.
   */
  fix: z.object({ description: z.string(), changes: z.array(z.record(z.string(), z.unknown())) }).nullable(),
  /** What a person should do about it, when the repair alone does not settle it. */
  nextStep: z.string().optional(),
  /** The observation the document belongs to (a file's), so the issue can link to it. */
  observationId: z.string().optional(),
  status: z.enum(["open", "repaired"]),
  /** The document's updated_at when scanned: a repair refuses (409) when it changed since. */
  documentUpdatedAt: isoDate.nullable(),
  /** Set by a repair: who, when, what it did, and that re-running the check found the issue gone. */
  repair: z.object({ at: isoDate, by: z.string().nullable(), verified: z.boolean(), result: z.record(z.string(), z.unknown()) }).optional(),
});
export type IntegrityIssueDoc = z.infer<typeof integrityIssueDocSchema>;
