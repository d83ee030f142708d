import { z } from "@hono/zod-openapi";
import { getObservatoryQueue, observationSchema } from "@meridian/domain/observations";
import {
  createdObservatoryKeySchema,
  createObservatoryKey,
  listObservatoryKeys,
  MAX_LIVE_OBSERVATORY_KEYS,
  observatoryKeyCreateSchema,
  observatoryKeySchema,
  revokeObservatoryKey,
} from "@meridian/domain/observatories";
import { defineOperation } from "./define-operation";
import { authedErrors, conflict, idParam, wholeList } from "./responses";
import { waitReasonFields } from "./wait-reason";

const tags = ["Observatories"];

const params = z.object({ id: idParam });

const queueReasonSchema = z.object(waitReasonFields).meta({ id: "QueueReason" });

const observatoryQueueSchema = z
  .object({
    items: z.array(
      z.object({
        observation: observationSchema,
        eligible: z.boolean(),
        blockedBy: queueReasonSchema.nullable(),
        reasons: z.array(queueReasonSchema),
      }),
    ),
    darkness: z.object({ start: z.string(), end: z.string() }).nullable(),
  })
  .meta({ id: "ObservatoryQueue" });

/** An observatory's keys for its plugin, and its explained queue (tRPC `observatories.*`). */
export const observatoryDispatchOperations = {
  queue: defineOperation({
    operationId: "getObservatoryQueue",
    access: "signed-in",
    tags,
    summary: "The explained queue (can_view)",
    description:
      "Pending observations in dispatch order (highest priority, then oldest), each `eligible` now or held by every reason that " +
      "applies (`reasons`), in this order: the observation's own (BEFORE_WINDOW, AFTER_WINDOW, NOT_DARK, TARGET_NOT_VISIBLE, " +
      "ALLOCATION_EXHAUSTED: its estimate is more than what is left of its project's allocation here; FILTER_MISSING: its exposures ask " +
      "for a filter the observatory's plugin did not report in `equipment.filters`, names compared case-insensitively, no `until`) before the " +
      "observatory's (OBSERVATORY_BUSY, OFFLINE, DISPATCH_OFF, PLUGIN_OUTDATED, UNSAFE); `blockedBy` is the first of them. A constraint " +
      "that holds now but would not to the end of its estimate (the fixed window's end, darkness, the target's altitude, airmass or Moon " +
      "distance) is WOULD_NOT_FINISH with `limit` (window, darkness, altitude, airmass, moon) and `at` (when it is crossed), in the " +
      "place of AFTER_WINDOW, NOT_DARK or TARGET_NOT_VISIBLE respectively. `until` when known, never in the past: BEFORE_WINDOW's is the " +
      "window's start, NOT_DARK's the start of the next darkness for the observation's twilight, TARGET_NOT_VISIBLE's and " +
      "WOULD_NOT_FINISH's the next whole minute within 7 days at which it can start with every constraint met to the end of its estimate " +
      "(darkness included, so never a moment outside it); the observatory's reasons have none. Two reasons say it can never run here, " +
      "with no `until` (extensions): TARGET_NOT_VISIBLE with `highestAltitude` when its first target's highest altitude at the site (its " +
      "culmination) is below its minimum altitude or past its maximum airmass, and NOT_DARK with `windowInDaylight` when its time window " +
      "holds no darkness. Dispatch follows the network plan (`GET /network/plan`): an observation held by nothing else that the plan " +
      "starts later here is PLANNED_LATER (`until`: its planned start), one it runs at another observatory PLANNED_ELSEWHERE " +
      "(`observatoryId`: that one, `until`: its planned start there); one the plan does not run is eligible if it would end before the " +
      "next run the plan starts here, else OBSERVATORY_BUSY until that run. Computed by the function dispatch uses. `darkness`: the " +
      "current or next astronomical dark interval, null without a location.",
    method: "get",
    path: "/observatories/{id}/queue",
    status: 200,
    params,
    output: observatoryQueueSchema,
    outputDescription: "The queue",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservatoryQueue({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  keys: defineOperation({
    operationId: "listObservatoryKeys",
    access: "signed-in",
    tags,
    summary: "The observatory's plugin keys, without the secrets (can_admin)",
    description: `Every live (not revoked) key, newest first, whole: an observatory holds at most ${MAX_LIVE_OBSERVATORY_KEYS} of them.`,
    method: "get",
    path: "/observatories/{id}/api-keys",
    status: 200,
    params,
    output: wholeList(observatoryKeySchema),
    outputDescription: "Keys",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listObservatoryKeys({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  createKey: defineOperation({
    operationId: "createObservatoryKey",
    access: "signed-in",
    tags,
    summary: "A key for the observatory's plugin (can_admin); the key is shown once",
    description:
      "The key acts only as this observatory: it opens /ws/observatory, reports statuses of its observations and uploads their files. " +
      `An observatory holds at most ${MAX_LIVE_OBSERVATORY_KEYS} live (not revoked) keys: the next is refused with 409 CONFLICT until one is revoked.`,
    method: "post",
    path: "/observatories/{id}/api-keys",
    status: 201,
    params,
    body: observatoryKeyCreateSchema,
    output: createdObservatoryKeySchema,
    outputDescription: "Created",
    responses: { ...authedErrors, 409: conflict(`CONFLICT: ${MAX_LIVE_OBSERVATORY_KEYS} live keys already`) },
    handle: ({ ctx, actor, input }) => createObservatoryKey({ deps: ctx.deps, actor, observatoryId: input.id, name: input.name }),
  }),
  revokeKey: defineOperation({
    operationId: "revokeObservatoryKey",
    access: "signed-in",
    tags,
    summary: "Revoke a key (can_admin): it stops working at once and its connection is closed",
    method: "delete",
    path: "/observatories/{id}/api-keys/{keyId}",
    status: 204,
    params: z.object({ id: idParam, keyId: idParam }),
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => revokeObservatoryKey({ deps: ctx.deps, actor, observatoryId: input.id, keyId: input.keyId }),
  }),
};
