import { z } from "zod";
import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { markSilentObservatoriesOffline } from "../observatories";
import { inTransaction } from "../../platform/transaction";
import { dispatchObservatory, observatoriesAwaitingDispatch } from "./dispatch";
import { reassignFromUnavailableObservatories } from "./failover";
import { reportStaleObservations } from "./stale-monitor";
import { queueDispatch, queueNetworkPlan } from "./transitions";

/** Dispatch jobs queued per transaction: each statement goes out pipelined, and no transaction grows with the network. */
const QUEUED_PER_TRANSACTION = 100;

/**
 * Assigns an observatory its next eligible observation, if it is free; queued by every change that could make one eligible
 * (`queueDispatch`), keyed by observatory so that a burst of changes makes one dispatch.
 */
export const dispatchObservatoryJob = defineJob({
  name: "dispatch_observatory",
  payload: z.object({ observatoryId: z.string().min(1) }),
  maxAttempts: 5,
  jobKey: ({ observatoryId }) => `dispatch:${observatoryId}`,
  run: ({ observatoryId }, { deps }) => dispatchObservatory({ deps, observatoryId }),
  supersededByKey: {},
});

/**
 * The minute sweep: observatories silent past the heartbeat timeout go offline (their process may
 * have died with the connection), every online one with an observation waiting and none under
 * way is dispatched, so an observation becomes eligible when darkness begins or its window opens
 * without any event, and observations stuck in assigned or in_progress are reported.
 */
export const observationsMaintenanceJob = defineJob({
  name: "observations_maintenance",
  payload: scheduledPayload,
  schedule: "* * * * *",
  async run(_payload, { deps }) {
    await markSilentObservatoriesOffline({ deps });
    await reportStaleObservations({ deps });
    // Time alone moves the plan on (darkness, windows, an observatory away past REASSIGN_AFTER_MINUTES): made again each minute.
    await inTransaction(deps, (t) => queueNetworkPlan({ t }));
    // In the order of their ids, the order every transaction asks for several dispatches in (queueDispatchAtEach: no deadlock).
    const awaiting = (await observatoriesAwaitingDispatch({ db: deps.db })).sort();
    for (let start = 0; start < awaiting.length; start += QUEUED_PER_TRANSACTION) {
      const chunk = awaiting.slice(start, start + QUEUED_PER_TRANSACTION);
      await inTransaction(deps, (t) => Promise.all(chunk.map((observatoryId) => queueDispatch({ t, observatoryId }))));
    }
  },
});

/**
 * The failover: observations assigned and unstarted at an observatory offline, unsafe or held for weather past
 * `REASSIGN_AFTER_MINUTES` that name other candidates wait again (`reassignFromUnavailableObservatories`). Each minute,
 * and at the moment an observatory's change makes one due (`queueReassignCheck`, keyed per observatory).
 */
export const observationsFailoverJob = defineJob({
  name: "observations_failover",
  payload: scheduledPayload,
  schedule: "* * * * *",
  run: (_payload, { deps }) => reassignFromUnavailableObservatories({ deps }),
});
