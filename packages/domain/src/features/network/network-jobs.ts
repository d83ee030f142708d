import { z } from "zod";
import { defineJob } from "../../platform/jobs/define-job";
import { makeNetworkPlan } from "./make-plan";

/**
 * Makes the network plan again. Asked for, in the same transaction, by every change that can alter
 * it (`queueNetworkPlan` of observations: a submission, edit, move, an observatory's connection,
 * safety, weather, settings or allocations) and by the minute's sweep; a run covers every request
 * committed before it (see the README for how a burst makes one plan and why one plans at a time).
 */
export const networkPlanJob = defineJob({
  name: "network_plan",
  payload: z.object({}),
  maxAttempts: 3,
  // One at a time across the cluster: a planning waits for the planning lock on a pool connection of its own, so
  // planners run side by side sat on connections the requests need (CI run 9 of 2026-11-30: 503s during a restore).
  queueName: () => "network_plan",
  run: (_payload, { deps }) => makeNetworkPlan({ deps }),
});
