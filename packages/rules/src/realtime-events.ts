import { z } from "zod";
import { observationStatuses } from "./observation-statuses";

const id = z.string();

/**
 * What the server pushes over `/ws`, by message type, as docs/api-contract.md's WebSocket section names
 * them. The server publishes exactly these (`publishEvent` is typed by them) and the SPA listens
 * for them, so the two cannot disagree on a payload.
 */
export const realtimeEventSchemas = {
  "announcement.counts": z.object({ id, acknowledged: z.number().int(), pending: z.number().int() }),
  "announcement.delivery": z.object({ id }),
  "announcement.acknowledged": z.object({ id, acknowledgedAt: z.string() }),
  "announcement.cancelled": z.object({ id, reason: z.string().optional(), cancelledAt: z.string().optional() }),
  "announcement.expired": z.object({ id }),
  "organization.member_added": z.object({ organizationId: id, organizationName: z.string(), permissions: z.record(z.string(), z.boolean()) }),
  "organization.member_removed": z.object({ organizationId: id, organizationName: z.string() }),
  "observation.status_changed": z.object({ id, status: z.enum(observationStatuses), previousStatus: z.enum(observationStatuses).nullable(), at: z.string() }),
  /** Extension: a file's copy to its observation's storage destination changed state (pending, delivered, failed). */
  "observation.file_delivery": z.object({
    observationId: id,
    fileId: id,
    destinationId: id,
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
  }),
  /** Extension: an observatory's plugin came online or went offline, to those who may view it, so its pages follow at once. */
  "observatory.connection_changed": z.object({ id, online: z.boolean(), at: z.string() }),
  /**
   * Extension: a new network plan is in force. Only when, not what: each client reads `GET /network/plan` again, which
   * shows it the observatories and observations it may see, so one event can go to every user.
   */
  "network.plan_changed": z.object({ computedAt: z.string() }),
  "job.progress": z.object({
    id,
    kind: z.string(),
    status: z.enum(["queued", "running", "completed", "failed"]),
    progress: z.object({ done: z.number(), total: z.number().nullable(), stage: z.string().nullable() }),
  }),
};

/**
 * Every event's payload. `announcement.created` carries the announcement as the API presents it,
 * whose schema belongs to the domain: each side fills it in with its own view of that type.
 */
export type RealtimeEvents<Announcement = unknown> = { [Type in keyof typeof realtimeEventSchemas]: z.infer<(typeof realtimeEventSchemas)[Type]> } & {
  "announcement.created": Announcement;
};

/** One event as the server pushes it to users over `/ws`: its type and its payload. */
export type RealtimeEvent<Announcement = unknown> = {
  [Type in keyof RealtimeEvents<Announcement>]: { type: Type; data: RealtimeEvents<Announcement>[Type] };
}[keyof RealtimeEvents<Announcement>];
