import { z } from "@hono/zod-openapi";
import {
  getNetworkPlan,
  getObservationPlanPlace,
  MAX_PLAN_OBSERVATORIES,
  networkPlanQuerySchema,
  networkPlanSchema,
  observationPlanPlaceSchema,
} from "@meridian/domain/network";
import { defineOperation } from "./define-operation";
import { authedErrors, idParam } from "./responses";

/** The network plan and one observation's place in it (tRPC `network.plan`, `network.observationPlace`). */
export const networkOperations = {
  plan: defineOperation({
    operationId: "getNetworkPlan",
    access: "signed-in",
    tags: ["Observatories"],
    summary: "The network plan: where and when each pending observation runs over the horizon (can_view on each observatory)",
    description:
      "The plan in force, made by the `network_plan` job after every change (within seconds) and every minute: for the next " +
      "`PLAN_HORIZON_HOURS` each pending observation at one of its candidate observatories and a start, maximizing Σ priority × estimated " +
      "seconds. `?observatoryIds` names 1 to " +
      `${MAX_PLAN_OBSERVATORIES} observatories (400 VALIDATION_FAILED otherwise); without can_view on every one, 403 FORBIDDEN, also for ` +
      `an id that does not exist, so the answer tells no one which exist. Without it: every observatory the caller may view, the first ` +
      `${MAX_PLAN_OBSERVATORIES} by id. Only the slots and reasons at those observatories, and only observations the caller may read, are ` +
      "in it; `objective` is over the slots shown. `observatories[].nights` are each one's dark periods within the horizon. " +
      "`unscheduled[].reasons` give, per observatory asked for, why the observation has no slot there (the queue's codes; " +
      "OBSERVATORY_BUSY when the time went to work worth more), `until` when known. Before the first plan is made `computedAt` and " +
      "`horizonEnd` are null and the lists empty. All times ISO 8601 UTC.",
    method: "get",
    path: "/network/plan",
    status: 200,
    query: networkPlanQuerySchema,
    output: networkPlanSchema,
    outputDescription: "The plan at those observatories",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getNetworkPlan({ deps: ctx.deps, actor, observatoryIds: input.observatoryIds }),
  }),
  observationPlace: defineOperation({
    operationId: "getObservationPlanPlace",
    access: "signed-in",
    tags: ["Observations"],
    summary: "One observation's place in the network plan: where and when it runs, or why not at each candidate (readers)",
    description:
      "An extension where the contract is silent: what `GET /network/plan` says of one observation, without reading the whole plan, " +
      "for the observation's page. `slots`: its runs in the plan in force, by start, each with its observatory and that observatory's " +
      "`timeZone` (where and when; the forecast's `observatoryId` already names the first for every reader). `reasons`: when the plan " +
      "leaves it out, why, at each of its candidates the caller may view (`can_view`, as in `GET /network/plan`; a project member who " +
      "may view none gets none), with the queue's code and `until` when known; empty when it is planned, or when the plan has not seen " +
      "it yet (it is made again within seconds of a change: `network.plan_changed`). Before the first plan `computedAt` and `horizonEnd` " +
      "are null and both lists empty. Readers only: anyone else, like an id that does not exist, gets 404 NOT_FOUND. All times ISO 8601 UTC.",
    method: "get",
    path: "/network/plan/observations/{id}",
    status: 200,
    params: z.object({ id: idParam }),
    output: observationPlanPlaceSchema,
    outputDescription: "Its place in the plan",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservationPlanPlace({ deps: ctx.deps, actor, observationId: input.id }),
  }),
};
