import { runBackup } from "@meridian/domain/backups";
import { endJobForGood, jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const backupCreateTask = defineTask(jobContracts.backup_create, async (payload, { deps }, helpers) => {
  try {
    // A retry after a crash writes the archive over again; a finished stage is not redone.
    await runBackup({ deps, jobId: payload.jobId, backupId: payload.backupId, then: payload.then });
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts)
      await endJobForGood({ deps, jobId: payload.jobId, reason: String((error as Error)?.message ?? error), payload });
    throw error;
  }
});
