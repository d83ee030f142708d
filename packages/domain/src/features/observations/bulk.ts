import { observationPrioritySchema } from "@meridian/rules/observations";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { isAppError } from "../../platform/errors";
import { opaqueIdSchema, withoutControlCharacters } from "../users";
import { cancelObservation, updateObservation } from "./observations";
import { pauseObservation, resumeObservation } from "./operate";

/** The most ids one bulk request may name (contract: POST /observations/bulk). */
export const BULK_OBSERVATION_LIMIT = 500;
const observationBulkActions = ["pause", "resume", "cancel", "set_priority"] as const;

export const observationBulkSchema = z
  .strictObject({
    ids: z.array(opaqueIdSchema).min(1).max(BULK_OBSERVATION_LIMIT),
    action: z.enum(observationBulkActions),
    priority: observationPrioritySchema.optional().describe("For set_priority, and only for it: 1 to 10"),
    reason: withoutControlCharacters(z.string().trim().min(1).max(1000)).optional().describe("The status reason of a pause, resume or cancel"),
  })
  .superRefine((value, ctx) => {
    if (value.action === "set_priority" && value.priority === undefined)
      ctx.addIssue({ code: "custom", path: ["priority"], message: "is required to set the priority" });
    if (value.action !== "set_priority" && value.priority !== undefined)
      ctx.addIssue({ code: "custom", path: ["priority"], message: `is only for set_priority, not ${value.action}` });
    if (value.action === "set_priority" && value.reason !== undefined)
      ctx.addIssue({ code: "custom", path: ["reason"], message: "is only for a pause, resume or cancel" });
  })
  .meta({ id: "ObservationBulkRequest" });
export type ObservationBulkRequest = z.output<typeof observationBulkSchema>;

export const observationBulkResultSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        ok: z.boolean(),
        code: z
          .string()
          .optional()
          .describe("Why this id was refused: the code the single operation answers with (NOT_FOUND, FORBIDDEN, INVALID_TRANSITION, ...)"),
        detail: z.string().optional().describe("The single operation's explanation of a refusal (extension)"),
      }),
    ),
  })
  .meta({ id: "ObservationBulkResult" });
export type ObservationBulkResult = z.output<typeof observationBulkResultSchema>;

/**
 * One action over many observations (contract: POST /observations/bulk). Each id is acted on as
 * the single operation would, in its own transaction: a refusal or failure of one changes nothing
 * for the others, and an id the caller may not read is NOT_FOUND exactly as one that does not
 * exist. `set_priority` is `PUT {priority}`: the owner or `can_operate`, only while pending or
 * paused. Results come in the order of the ids, one per distinct id (a repeated id is acted on once).
 */
export async function bulkOperateObservations(options: { deps: Deps; actor: UserActor; request: ObservationBulkRequest }): Promise<ObservationBulkResult> {
  const { deps, actor, request } = options;
  const single = (observationId: string) => {
    const common = { deps, actor, observationId };
    switch (request.action) {
      case "pause":
        return pauseObservation({ ...common, reason: request.reason });
      case "resume":
        return resumeObservation({ ...common, reason: request.reason });
      case "cancel":
        return cancelObservation({ ...common, reason: request.reason });
      case "set_priority":
        return updateObservation({ ...common, update: { priority: request.priority } });
    }
  };
  const results: ObservationBulkResult["results"] = [];
  // One at a time: each holds one observation's row lock, and the order of the results is the caller's.
  for (const id of new Set(request.ids)) {
    try {
      await single(id);
      results.push({ id, ok: true });
    } catch (error) {
      if (isAppError(error)) {
        results.push({ id, ok: false, code: error.code, detail: error.message });
        continue;
      }
      deps.logger.error({ err: error, observationId: id, action: request.action }, "bulk observation action failed");
      results.push({ id, ok: false, code: "INTERNAL", detail: "This one failed on the server; the others are as reported" });
    }
  }
  return { results };
}
