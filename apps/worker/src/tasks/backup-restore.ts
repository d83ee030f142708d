import { RestoreRefused, runRestore } from "@meridian/domain/backups";
import { endJobForGood, jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const backupRestoreTask = defineTask(jobContracts.backup_restore, async (payload, { deps }, helpers) => {
  try {
    await runRestore({ deps, jobId: payload.jobId, backupId: payload.backupId, actorId: payload.actorId });
  } catch (error) {
    const reason = String((error as Error)?.message ?? error);
    // An unusable backup stays unusable: no retry. Anything else (a crash, a lost connection) is retried from the start.
    if (error instanceof RestoreRefused) return endJobForGood({ deps, jobId: payload.jobId, reason, payload });
    if (helpers.job.attempts >= helpers.job.max_attempts) await endJobForGood({ deps, jobId: payload.jobId, reason, payload });
    throw error;
  }
});
