import { inTransaction, jobContracts, markSilentObservatoriesOffline, onlineObservatoryIds, queueDispatch, reportStaleObservations } from "@meridian/domain";
import { defineTask } from "../define-task";

/**
 * Every minute: observatories silent past the heartbeat timeout go offline (their process may
 * have died with the connection), every online one is dispatched, so an observation becomes
 * eligible when darkness begins or its window opens without any event, and observations stuck
 * in assigned or in_progress are reported.
 */
export const observationsMaintenanceTask = defineTask(jobContracts.observations_maintenance, async (_payload, { deps }) => {
  await markSilentObservatoriesOffline({ deps });
  await reportStaleObservations({ deps });
  for (const observatoryId of await onlineObservatoryIds(deps)) {
    await inTransaction(deps, (t) => queueDispatch({ t, observatoryId }));
  }
});
