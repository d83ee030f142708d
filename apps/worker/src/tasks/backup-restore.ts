import { failRestore, jobContracts, RestoreRefused, runRestore } from "@meridian/domain";
import { defineTask } from "../define-task";

export const backupRestoreTask = defineTask(jobContracts.backup_restore, async (payload, { deps }, helpers) => {
  try {
    await runRestore({ deps, jobId: payload.jobId, backupId: payload.backupId, actorId: payload.actorId });
  } catch (error) {
    const message = String((error as Error)?.message ?? error);
    // An unusable backup stays unusable: no retry. Anything else (a crash, a lost connection) is retried from the start.
    if (error instanceof RestoreRefused) return failRestore(deps, payload.jobId, message);
    if (helpers.job.attempts >= helpers.job.max_attempts) await failRestore(deps, payload.jobId, message);
    throw error;
  }
});
