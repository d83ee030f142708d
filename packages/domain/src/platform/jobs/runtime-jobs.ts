import { defineJob, scheduledPayload } from "./define-job";
import { reconcileTrackedJobs } from "./job-endings";
import { pruneTrackedJobs } from "./job-retention";

/**
 * Removes tracked job records finished more than `JOBS_KEEP_DAYS` ago, never a queued or running one, nor one that a backup
 * or integrity scan still names, the maintenance switch names, or a graphile-worker job may still report to (`job-retention.ts`).
 */
export const pruneTrackedJobsJob = defineJob({
  name: "prune_tracked_jobs",
  payload: scheduledPayload,
  schedule: "35 4 * * *",
  run: (_payload, { deps }) => pruneTrackedJobs({ db: deps.db, now: deps.now(), keepDays: deps.env.JOBS_KEEP_DAYS }),
});

/** Fails the long jobs whose every attempt ended without finishing (a killed worker never reports) and releases what they held. */
export const reconcileJobsJob = defineJob({
  name: "reconcile_jobs",
  payload: scheduledPayload,
  schedule: "* * * * *",
  run: (_payload, { deps }) => reconcileTrackedJobs({ deps }),
});
