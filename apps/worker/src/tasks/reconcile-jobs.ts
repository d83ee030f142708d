import { jobContracts, reconcileTrackedJobs } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const reconcileJobsTask = defineTask(jobContracts.reconcile_jobs, async (_payload, { deps }) => {
  await reconcileTrackedJobs({ deps });
});
