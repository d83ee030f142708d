import { observatoriesAwaitingDispatch, queueDispatch, reportStaleObservations } from "@meridian/domain/observations";
import { markSilentObservatoriesOffline } from "@meridian/domain/observatories";
import { inTransaction, jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

/** Dispatch jobs queued per transaction: each statement goes out pipelined, and no transaction grows with the network. */
const QUEUED_PER_TRANSACTION = 100;

/**
 * Every minute: observatories silent past the heartbeat timeout go offline (their process may
 * have died with the connection), every online one with an observation waiting and none under
 * way is dispatched, so an observation becomes eligible when darkness begins or its window opens
 * without any event, and observations stuck in assigned or in_progress are reported.
 */
export const observationsMaintenanceTask = defineTask(jobContracts.observations_maintenance, async (_payload, { deps }) => {
  await markSilentObservatoriesOffline({ deps });
  await reportStaleObservations({ deps });
  const awaiting = await observatoriesAwaitingDispatch({ db: deps.db });
  for (let start = 0; start < awaiting.length; start += QUEUED_PER_TRANSACTION) {
    const chunk = awaiting.slice(start, start + QUEUED_PER_TRANSACTION);
    await inTransaction(deps, (t) => Promise.all(chunk.map((observatoryId) => queueDispatch({ t, observatoryId }))));
  }
});
