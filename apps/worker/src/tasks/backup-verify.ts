import { runBackupVerification } from "@meridian/domain/backups";
import { jobContracts, reportJob } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const backupVerifyTask = defineTask(jobContracts.backup_verify, async (payload, { deps }, helpers) => {
  try {
    await runBackupVerification({ deps, jobId: payload.jobId, backupId: payload.backupId });
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts)
      await reportJob({ deps, jobId: payload.jobId, status: "failed", error: String((error as Error)?.message ?? error).slice(0, 500) });
    throw error;
  }
});
