import { jobCrontab, registeredJobList } from "@meridian/domain/job-registry";
import { jobTask, type DefinedJob, type Deps } from "@meridian/domain/platform";
import type { TaskList } from "graphile-worker";

export interface TaskServices {
  deps: Deps;
}

/**
 * graphile-worker's task list, one task per job of the registry (`packages/domain/src/job-registry.ts`):
 * each checks its payload against the job's schema, then runs the job under the last-attempt catch.
 */
export function buildTaskList(services: TaskServices, jobs: readonly DefinedJob[] = registeredJobList): TaskList {
  return Object.fromEntries(jobs.map((job) => [job.name, jobTask({ job, deps: services.deps })]));
}

/** Derived from the jobs' schedules. */
export const crontab = jobCrontab();
