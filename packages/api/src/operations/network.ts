import { getNetworkPlan, MAX_PLAN_OBSERVATORIES, networkPlanQuerySchema, networkPlanSchema } from "@meridian/domain/network";
import { defineOperation } from "./define-operation";
import { authedErrors } from "./responses";

/** The network plan (tRPC `network.plan`). */
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
};
