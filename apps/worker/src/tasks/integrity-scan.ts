import { failIntegrityScan, runIntegrityScan } from "@meridian/domain/integrity";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const integrityScanTask = defineTask(jobContracts.integrity_scan, async (payload, { deps }, helpers) => {
  try {
    // A retry resumes from the scan's checkpoint.
    await runIntegrityScan({ deps, scanId: payload.scanId });
  } catch (error) {
    if (helpers.job.attempts >= helpers.job.max_attempts)
      await failIntegrityScan({ deps, scanId: payload.scanId, error: String((error as Error)?.message ?? error) });
    throw error;
  }
});
