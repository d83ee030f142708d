import { observationStatuses, observationTypes } from "@meridian/rules";
import {
  monitoringSchema,
  observationConstraintsSchema,
  observationNotificationsSchema,
  observationPrioritySchema,
  targetListSchema,
  targetSchema,
} from "@meridian/rules/observations";
import { frameAnalysisSchema } from "@meridian/rules/frames";
import { z } from "zod";
import { isoDate } from "./documents";

/**
 * Observations and what hangs off them. The fields a person fills in (targets, exposures,
 * constraints, notifications, priority) are `@meridian/rules/observations`' schemas, so the API's
 * input validation, the wizard's checks and the integrity scan's check of stored documents are the same rule.
 */
export const lostFileSchema = z.object({
  fileId: z.string(),
  filename: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  contentType: z.string(),
  /** When the integrity scan that found its bytes gone ran. */
  foundMissingAt: isoDate,
  /** When the repair removed its record. */
  removedAt: isoDate,
});
export type LostFile = z.infer<typeof lostFileSchema>;

export const observationDocSchema = z.object({
  name: z.string().trim().min(1).max(200),
  projectId: z.string(),
  /**
   * Where it runs: its one observatory; with candidates, the one it was assigned to, null while it waits (pending or
   * paused) and again when it goes back to pending (contract: "Network scheduling"). Only `moveObservation` sets it then.
   */
  observatoryId: z.string().nullable(),
  /**
   * Every observatory it may run at, in the order given: `[observatoryId]` for one with a single observatory. Written on
   * every new document; absent on those written before candidates existed, which read as `[observatoryId]`
   * (`candidateObservatoryIdsOf`, and the `candidate_observatory_ids` column, migration 0024).
   */
  candidateObservatoryIds: z.array(z.string()).min(1).optional(),
  ownerId: z.string(),
  type: z.enum(observationTypes),
  priority: observationPrioritySchema,
  targets: targetListSchema(targetSchema),
  constraints: observationConstraintsSchema,
  fixedTimeStart: isoDate.nullable(),
  fixedTimeEnd: isoDate.nullable(),
  bypassDarkness: z.boolean(),
  notifications: observationNotificationsSchema,
  status: z.enum(observationStatuses),
  statusReason: z.string().nullable(),
  statusChangedAt: isoDate,
  isMonitoring: z.boolean(),
  /** How a monitoring observation repeats; absent or null: at once after each run, for ever (as before cadences existed). */
  monitoring: monitoringSchema.nullable().optional(),
  /** A monitoring observation's runs so far (each end in completed or failed) and when the last one ended; absent before the first. */
  monitoringRuns: z.object({ count: z.number().int().nonnegative(), lastEndedAt: isoDate }).optional(),
  /** One of its project's organization's external storage destinations, which every file of it is copied to; absent or null: none. */
  storageDestinationId: z.string().nullable().optional(),
  /** When the stale monitor reported this observation stuck in its current status (once per stay). */
  staleReportedAt: isoDate.nullable().default(null),
  /**
   * Files whose bytes were lost and whose records an integrity repair then removed: what each was and
   * when, so the observation still says a file was there (its Files card would otherwise just be empty).
   */
  lostFiles: z.array(lostFileSchema).optional(),
  /** Made by the server to repeat the exposures this observation's source lacked (contract: "Frames"): the source's id, and how deep (1 or 2). */
  repeatOf: z.string().nullable().optional(),
  repeatNumber: z.number().int().min(1).optional(),
  /**
   * Set once the server has judged whether this observation's missing exposures are repeated: the repeat's id, or null when none
   * was needed or it could not be made (its history then says why). Absent until then; never judged again once set.
   */
  repeatedAs: z.string().nullable().optional(),
  /** Deprecated (spec, Versioning 6): file names from older versions; the integrity scan migrates them into file records. */
  captured_files: z.array(z.string()).optional(),
});
export type ObservationDoc = z.infer<typeof observationDocSchema>;

/** Every observatory the observation may run at: its candidates, or its one observatory on a document older than candidates. */
export function candidateObservatoryIdsOf(doc: Pick<ObservationDoc, "observatoryId" | "candidateObservatoryIds">): string[] {
  if (doc.candidateObservatoryIds) return doc.candidateObservatoryIds;
  return doc.observatoryId === null ? [] : [doc.observatoryId];
}

/** Whether the observation names several observatories (so its `observatoryId` is null while it waits). */
export const hasCandidates = (doc: Pick<ObservationDoc, "observatoryId" | "candidateObservatoryIds">) => candidateObservatoryIdsOf(doc).length > 1;

export const historyActorSchema = z.object({ kind: z.enum(["user", "observatory", "system"]), id: z.string() });

export const observationHistoryDocSchema = z.object({
  observationId: z.string(),
  from: z.enum(observationStatuses).nullable(),
  to: z.enum(observationStatuses),
  at: isoDate,
  actor: historyActorSchema,
  reason: z.string().nullable(),
  /** Of an observation with candidates: the observatory the move left it at (absent while it waits at none, and for one with a single observatory). */
  observatoryId: z.string().optional(),
});
export type ObservationHistoryDoc = z.infer<typeof observationHistoryDocSchema>;

export const fileKinds = ["image", "preview", "other"] as const;

const fileDeliveryStatuses = ["pending", "delivered", "failed"] as const;
export const fileDeliverySchema = z.object({
  destinationId: z.string(),
  status: z.enum(fileDeliveryStatuses),
  attempts: z.number().int().nonnegative(),
  remotePath: z.string().nullable(),
  deliveredAt: isoDate.nullable(),
  error: z.string().nullable(),
});
export type FileDelivery = z.infer<typeof fileDeliverySchema>;

/**
 * A frame's analysis, with the id of the analysis asked for last: only that request's job may write its result, and
 * `mirrored` when its solution has east to the right of north (a flipped readout, an odd number of mirrors), which the
 * contract's solution does not say and a WCS written into the frame needs. Neither is shown by the API.
 */
export const frameDocSchema = frameAnalysisSchema.extend({ analysisId: z.string(), mirrored: z.boolean().optional() });
export type FrameDoc = z.infer<typeof frameDocSchema>;

export const fileDocSchema = z.object({
  observationId: z.string(),
  /** The observatory whose key uploaded it. */
  observatoryId: z.string(),
  filename: z.string().min(1).max(255),
  sizeBytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  contentType: z.string().min(1).max(255),
  kind: z.enum(fileKinds),
  previewOfId: z.string().nullable(),
  objectKey: z.string().min(1),
  /** Its copies to the observation's storage destination (a job each); absent: none was asked for. */
  deliveries: z.array(fileDeliverySchema).optional(),
  /** A FITS image's analysis (contract: "Frames"); absent or null: not a frame. */
  frame: frameDocSchema.nullable().optional(),
});
export type FileDoc = z.infer<typeof fileDocSchema>;

export const observatoryKeyDocSchema = z.object({
  observatoryId: z.string(),
  name: z.string(),
  keyHash: z.string(),
  prefix: z.string(),
  createdBy: z.string(),
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});
export type ObservatoryKeyDoc = z.infer<typeof observatoryKeyDocSchema>;

export const pushSubscriptionDocSchema = z.object({
  userId: z.string(),
  endpoint: z.url(),
  keys: z.object({ p256dh: z.string().min(1), auth: z.string().min(1) }),
  userAgent: z.string().nullable(),
});
export type PushSubscriptionDoc = z.infer<typeof pushSubscriptionDocSchema>;
