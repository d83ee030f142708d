import { failObservationCleanup, runObservationCleanup } from "@meridian/domain/cleanup";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const observationCleanupTask = defineTask(jobContracts.observation_cleanup, async (payload, { deps }, helpers) => {
  try {
    // A retry finishes what a killed run left: each batch's records, then their objects.
    await runObservationCleanup({ deps, jobId: payload.jobId, cutoff: payload.cutoff, actorId: payload.actorId, backupId: payload.backupId });
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts)
      await failObservationCleanup({ deps, jobId: payload.jobId, error: String((error as Error)?.message ?? error) });
    throw error;
  }
});
