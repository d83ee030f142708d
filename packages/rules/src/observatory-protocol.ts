import { z } from "zod";
import { withoutControlCharacters } from "./field-schemas";
import { FILTER_NAME_MAX_LENGTH, filterKey, MAX_REPORTED_FILTERS } from "./filters";
import { observationStatuses } from "./observation-statuses";

/**
 * `/ws/observatory` in both directions, as docs/api-contract.md's Observatory connection names it. The
 * server parses what plugins send with `pluginToServerMessageSchema` and may send only a
 * `ServerToPluginMessage`; the simulator and the tests read the server's messages with
 * `serverToPluginMessageSchema`, so neither side can drift from the other.
 */

/** The most of `systemInfo` or `equipment` stored, as JSON (`PAYLOAD_TOO_LARGE` beyond). */
export const REPORT_LIMIT_BYTES = 64 * 1024;
/** How deep `systemInfo` or `equipment` may nest (the report itself is level 1): deeper is `VALIDATION_FAILED`. */
export const REPORT_DEPTH_LIMIT = 32;
/** The longest `pluginVersion`: stored with the observatory and in its history. */
export const PLUGIN_VERSION_MAX_LENGTH = 64;

const messageId = z.union([z.string().min(1).max(100), z.number().int()]);
/** The rules of REST's status reason (`POST /observations/{id}/status`): trimmed, 1 to 1000 characters, no control characters. */
const reason = withoutControlCharacters(z.string().trim().min(1).max(1000))
  .describe("Free text for people: 1 to 1000 characters once trimmed, without control characters (as REST's status reason).")
  .optional();
/** An id as REST takes one: never more than an id's length, nor a character the database cannot hold. */
const observationId = withoutControlCharacters(z.string().min(1).max(100)).describe(
  "The assigned observation's id: at most 100 characters, no control characters.",
);
/**
 * Any JSON object; its size and content are checked where it is stored (`observatoryHello`,
 * `observatoryConfig`), with their own error codes.
 */
const report = z
  .record(z.string(), z.unknown())
  .describe(
    `Any JSON object, stored whole: at most ${REPORT_LIMIT_BYTES / 1024} KiB as JSON (else error PAYLOAD_TOO_LARGE), nested at most ` +
      `${REPORT_DEPTH_LIMIT} levels deep, with no NUL character or lone surrogate in a key or a text (else error VALIDATION_FAILED). ` +
      "Nothing of a refused message is stored.",
  );

/**
 * The observatory's filters (`equipment.filters`): what exposures may ask for there. Checked like
 * any text a plugin sends, trimmed, and compared case-insensitively, so one filter is named once.
 */
const reportedFilterList = z
  .array(withoutControlCharacters(z.string().trim().min(1).max(FILTER_NAME_MAX_LENGTH)))
  .min(1)
  .max(MAX_REPORTED_FILTERS)
  .refine((names) => new Set(names.map(filterKey)).size === names.length, "must name each filter once (names compare case-insensitively)")
  .describe(
    `The filter names its filter wheel holds ("L", "Ha", "OIII"...): 1 to ${MAX_REPORTED_FILTERS}, each 1 to ${FILTER_NAME_MAX_LENGTH} characters once ` +
      "trimmed, without control characters, each once (compared case-insensitively). An observatory that reported them gets no observation " +
      "whose exposures ask for another filter (queue code FILTER_MISSING), and a submission to it alone asking for one is refused " +
      "(FILTER_NOT_AVAILABLE). The last report wins: an equipment report without filters lifts the restriction. Leave it out when the " +
      "camera has no filter wheel.",
  );
/** The equipment report: any JSON object as `report`, whose `filters`, when given, is the observatory's filter list. */
const equipment = z
  .looseObject({ filters: reportedFilterList.optional() })
  .describe(`${report.description} \`filters\`, when given, is checked as its own schema says (else VALIDATION_FAILED).`);

/** An equipment report as a plugin writes it (`hello`, `config`): any fields, and `filters` as the protocol checks them. */
export type EquipmentReport = z.input<typeof equipment>;

export const pluginToServerMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    id: messageId,
    pluginVersion: z
      .string()
      .max(PLUGIN_VERSION_MAX_LENGTH)
      .regex(/^\d+(\.\d+){0,3}$/)
      .describe(`One to four numbers joined by dots (3.8.0.0), at most ${PLUGIN_VERSION_MAX_LENGTH} characters.`),
    systemInfo: report.optional(),
    equipment: equipment.optional(),
  }),
  z.object({ type: z.literal("heartbeat"), id: messageId }),
  z.object({ type: z.literal("config"), id: messageId, systemInfo: report.optional(), equipment: equipment.optional() }),
  z.object({ type: z.literal("observation_status"), id: messageId, observationId, status: z.enum(observationStatuses), reason }),
  z.object({ type: z.literal("safety"), id: messageId, safe: z.boolean(), reason }),
  z.object({ type: z.literal("weather"), id: messageId, hold: z.boolean(), reason }),
  z.object({ type: z.literal("goodbye"), id: messageId }),
]);
/** A plugin's message as the server handles it. */
export type PluginToServerMessage = z.output<typeof pluginToServerMessageSchema>;
/** A plugin's message before its sender numbers it: every message but its `id`. */
export type PluginMessageBody = PluginToServerMessage extends infer Message ? (Message extends unknown ? Omit<Message, "id"> : never) : never;

// What a plugin cannot do without in an assignment and an announcement. The server sends them
// whole, as the API presents them; the schemas are loose so that the other fields (epoch, binning,
// constraints...) pass through and a field added later never breaks a plugin, and they only
// describe (no ranges): the server's own schemas decided what may be stored.
const exposure = z.looseObject({ filter: z.string(), exposureSeconds: z.number(), count: z.number() });
const target = z.looseObject({ name: z.string(), ra: z.number(), dec: z.number(), exposures: z.array(exposure) });
export const assignedObservationSchema = z.looseObject({ id: z.string(), name: z.string(), targets: z.array(target) });
export type AssignedObservation = z.output<typeof assignedObservationSchema>;
export const motdAnnouncementSchema = z.looseObject({ id: z.string(), title: z.string(), message: z.string(), severity: z.string() });
export type MotdAnnouncement = z.output<typeof motdAnnouncementSchema>;

export const serverToPluginMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("assign"), observation: assignedObservationSchema }),
  z.object({ type: z.literal("cancel"), observationId: z.string() }),
  z.object({ type: z.literal("update_required"), minimumPluginVersion: z.string() }),
  z.object({ type: z.literal("motd"), announcement: motdAnnouncementSchema }),
  z.object({ type: z.literal("ack"), id: messageId }),
  // The id as the message carried it (null when it had none or was not JSON): an unreadable message is answered too.
  // `retryAfter`: whole seconds to wait before sending it again, on a refusal for now that knows (as HTTP's Retry-After).
  z.object({ type: z.literal("error"), id: z.unknown(), code: z.string(), message: z.string(), retryAfter: z.number().int().positive().optional() }),
]);
type ServerToPluginSchemaMessage = z.output<typeof serverToPluginMessageSchema>;

/**
 * What the server sends a plugin. The server fills in its own, complete types of an observation
 * and an announcement (the parameters must still be what a plugin reads); a plugin keeps the
 * defaults, which is what `serverToPluginMessageSchema` gives it.
 */
export type ServerToPluginMessage<Observation extends AssignedObservation = AssignedObservation, Announcement extends MotdAnnouncement = MotdAnnouncement> =
  | Exclude<ServerToPluginSchemaMessage, { type: "assign" | "motd" }>
  | { type: "assign"; observation: Observation }
  | { type: "motd"; announcement: Announcement };
/** A message the server pushes to observatories unasked (not a reply): its type, and the rest of it as `data`. */
export type ServerToPluginEvent<Message extends { type: string } = ServerToPluginMessage> = {
  [Type in Exclude<Message["type"], "ack" | "error">]: { type: Type; data: Omit<Extract<Message, { type: Type }>, "type"> };
}[Exclude<Message["type"], "ack" | "error">];
/** The answers to a plugin's messages, one each, in order; the others the server sends on its own. */
export type ServerReply = Extract<ServerToPluginMessage, { type: "ack" | "error" }>;
