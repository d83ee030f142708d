import { failBulkRepair, runBulkRepair } from "@meridian/domain/integrity";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const integrityRepairTask = defineTask(jobContracts.integrity_repair, async (payload, { deps }, helpers) => {
  try {
    // A retry goes on with the issues still open.
    await runBulkRepair({ deps, jobId: payload.jobId, scanId: payload.scanId, issueIds: payload.issueIds });
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts)
      await failBulkRepair({ deps, jobId: payload.jobId, error: String((error as Error)?.message ?? error) });
    throw error;
  }
});
