import { z } from "@hono/zod-openapi";
import {
  BULK_OBSERVATION_LIMIT,
  bulkOperateObservations,
  cloneObservation,
  MAX_UNFINISHED_OBSERVATIONS,
  observationBulkResultSchema,
  observationBulkSchema,
  observationCloneQuerySchema,
  observationPauseSchema,
  observationSchema,
  observationUpdateSchema,
  pauseObservation,
  resumeObservation,
} from "@meridian/domain/observations";
import { defineOperation } from "./define-operation";
import { optionalJsonBody } from "./optional-body";
import { authedErrors, conflict, idParam, problemResponseFor } from "./responses";

const tags = ["Observations"];
const params = z.object({ id: idParam });

/** Pause, resume, clone and bulk actions on observations (contract: Operating observations; tRPC `observations.*`). */
export const observationOperatingOperations = {
  pause: defineOperation({
    operationId: "pauseObservation",
    access: "signed-in",
    tags,
    summary: "Pause a pending observation (owner or can_operate)",
    description:
      "pending → paused: dispatch passes it by until it is resumed. 409 INVALID_TRANSITION from any other status. The body is optional: " +
      "`reason` becomes its status reason.",
    method: "post",
    path: "/observations/{id}/pause",
    status: 200,
    params,
    ...optionalJsonBody(observationPauseSchema),
    output: observationSchema,
    outputDescription: "Paused",
    responses: { ...authedErrors, 409: conflict("INVALID_TRANSITION") },
    handle: ({ ctx, actor, input }) => pauseObservation({ deps: ctx.deps, actor, observationId: input.id, reason: input.reason }),
  }),
  resume: defineOperation({
    operationId: "resumeObservation",
    access: "signed-in",
    tags,
    summary: "Resume a paused observation (owner or can_operate)",
    description: "paused → pending: it waits for dispatch again. 409 INVALID_TRANSITION from any other status. The body is optional, as for pause.",
    method: "post",
    path: "/observations/{id}/resume",
    status: 200,
    params,
    ...optionalJsonBody(observationPauseSchema),
    output: observationSchema,
    outputDescription: "Pending again",
    responses: { ...authedErrors, 409: conflict("INVALID_TRANSITION") },
    handle: ({ ctx, actor, input }) => resumeObservation({ deps: ctx.deps, actor, observationId: input.id, reason: input.reason }),
  }),
  clone: defineOperation({
    operationId: "cloneObservation",
    access: "signed-in",
    tags,
    summary: "A new pending observation with the same fields (readers who may create it again)",
    description:
      "The caller must read the observation (404 otherwise) and may create it again: can_observe on its observatory (on each of its " +
      "candidates) and membership of its project (403 FORBIDDEN otherwise). The clone has the same project, observatory or candidates and " +
      "fields, the caller as owner and `cloned from <id>` " +
      "as its first history reason. The optional body overrides fields as PUT takes them; `?priority` sets the priority (400 when the " +
      "body gives one too); `observatoryId` or `candidateObservatoryIds` in the body (not both: 400) replace where it runs, judged as a " +
      "creation's. 409 PROJECT_NOT_ACTIVE when the project is not active, OBSERVATORY_REMOVED when its observatory or one of its " +
      "candidates was removed (name the others in the body instead); " +
      "400 when the resulting window is invalid or has already closed, and FILTER_NOT_AVAILABLE when an exposure, copied or overridden, " +
      "asks for a filter the observatory (every candidate) does not report now (as a submission). " +
      `A clone counts toward the project's at most ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations, as a creation does: ` +
      "409 CONFLICT beyond them.",
    method: "post",
    path: "/observations/{id}/clone",
    status: 201,
    params,
    query: observationCloneQuerySchema,
    ...optionalJsonBody(observationUpdateSchema),
    bodyKey: "overrides",
    output: observationSchema,
    outputDescription: "The clone",
    responses: {
      ...authedErrors,
      409: conflict(`PROJECT_NOT_ACTIVE, OBSERVATORY_REMOVED; CONFLICT when the project holds ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations`),
    },
    handle: ({ ctx, actor, input }) =>
      cloneObservation({ deps: ctx.deps, actor, observationId: input.id, overrides: input.overrides ?? {}, priority: input.priority }),
  }),
  bulk: defineOperation({
    operationId: "bulkObservations",
    access: "signed-in",
    tags,
    summary: "Pause, resume, cancel or set the priority of many observations",
    description:
      `At most ${BULK_OBSERVATION_LIMIT} ids. Each id is acted on as the single operation would (pause, resume, cancel, or PUT {priority} for ` +
      "set_priority: owner or can_operate, only while pending or paused), in its own transaction, so one refusal changes nothing for the " +
      "others. `results` has one entry per distinct id, in the order given (a repeated id is acted on once); a refused id carries the " +
      "single operation's code (an id the caller may not read is NOT_FOUND, as one that does not exist) and its explanation as `detail`. " +
      "`priority` is required for set_priority and refused with the other actions; `reason` is the status reason of a pause, resume or cancel.",
    method: "post",
    path: "/observations/bulk",
    status: 200,
    body: observationBulkSchema,
    output: observationBulkResultSchema,
    outputDescription: "One result per id",
    responses: {
      ...authedErrors,
      413: problemResponseFor("More distinct ids than the API_WRITES_PER_MINUTE changes one caller may make a minute (PAYLOAD_TOO_LARGE); nothing changed"),
    },
    // Each distinct id is a change of its own (its move and history entry); a repeat is acted on once, so costs nothing more.
    writeCost: (input) => new Set(input.ids).size,
    handle: ({ ctx, actor, input }) => bulkOperateObservations({ deps: ctx.deps, actor, request: input }),
  }),
};
