import { jobCrontab, jobRegistry, registeredJobList } from "@meridian/domain/job-registry";
import { addJob, type Deps } from "@meridian/domain/platform";
import type { Executor } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { buildTaskList, crontab } from "./task-list";

/** A database that fails the test if a job reaches it: a bad payload must be refused before. */
const untouchableDb = new Proxy({} as Executor, {
  get(_target, property) {
    throw new Error(`db.${String(property)} was used`);
  },
});

describe("job registry", () => {
  it("has exactly one worker task per job, under the same name as its registry key", () => {
    expect(registeredJobList.map((job) => job.name).sort()).toEqual(Object.keys(jobRegistry).sort());
    for (const [name, job] of Object.entries(jobRegistry)) expect(job.name).toBe(name);
    expect(Object.keys(buildTaskList({ deps: {} as Deps })).sort()).toEqual(Object.keys(jobRegistry).sort());
  });

  it("derives the crontab from the jobs' schedules", () => {
    expect(crontab).toBe(jobCrontab());
    expect(crontab.split("\n").sort()).toEqual([
      "* * * * * announcements_maintenance",
      "* * * * * backup_schedule",
      "* * * * * integrity_schedule",
      "* * * * * observations_failover",
      "* * * * * observations_maintenance",
      "* * * * * reconcile_jobs",
      "* * * * * refresh_analytics",
      "*/10 * * * * prune_realtime_events",
      "0 * * * * prune_rate_limits",
      "10 4 * * * prune_observatory_history",
      "17 4 * * * purge_quarantine",
      "20 * * * * prune_expired_links",
      "25 4 * * * prune_integrity_scans",
      "30 3 * * * abort_stale_uploads",
      "35 4 * * * prune_tracked_jobs",
      "40 * * * * prune_sessions",
      "45 4 * * * prune_audit_log",
      "5 * * * * api_key_expiry_notices",
      "50 3 * * * prune_email_outbox",
      "55 4 * * * prune_announcements",
    ]);
  });

  it("refuses a payload that does not match the job's schema where the job is queued", async () => {
    // @ts-expect-error: the compiler refuses it too.
    await expect(addJob(untouchableDb, "send_email", { outbox: "eml_1" })).rejects.toThrow();
    // @ts-expect-error: an unknown job name does not compile.
    await expect(addJob(untouchableDb, "no_such_job", {})).rejects.toThrow();
  });
});
