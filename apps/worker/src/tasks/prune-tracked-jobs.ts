import { jobContracts, pruneTrackedJobs } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneTrackedJobsTask = defineTask(jobContracts.prune_tracked_jobs, async (_payload, { deps }) => {
  await pruneTrackedJobs({ db: deps.db, now: deps.now(), keepDays: deps.env.JOBS_KEEP_DAYS });
});
