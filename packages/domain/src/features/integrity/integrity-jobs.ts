import { z } from "zod";
import { tickOf } from "../../platform/jobs/cron-tick";
import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { failBulkRepair, runBulkRepair } from "./bulk-repair";
import { purgeQuarantine } from "./repair";
import { failIntegrityScan, runIntegrityScan } from "./scan";
import { pruneIntegrityScans } from "./scan-retention";
import { startScheduledScans } from "./schedule";

const id = z.string().min(1);

/** An integrity scan (`integrity_scans` holds its options, checkpoint and progress). */
export const integrityScanJob = defineJob({
  name: "integrity_scan",
  payload: z.object({ scanId: id }),
  maxAttempts: 5,
  jobKey: ({ scanId }) => `integrity-scan:${scanId}`,
  // A retry resumes from the scan's checkpoint.
  run: ({ scanId }, { deps }) => runIntegrityScan({ deps, scanId }),
  afterLastAttempt: ({ scanId }, { deps, reason }) => failIntegrityScan({ deps, scanId, error: reason }),
  // Its graphile-worker job carries the scan's id, not the tracked job's.
  tracked: { subjectField: "scanId", release: ({ deps, job, reason }) => failIntegrityScan({ deps, scanId: job.doc.subjectId!, error: reason }) },
});

/** Repairs a scan's auto-fixable issues (all, or the ones named) one by one; `jobs` holds its progress. */
export const integrityRepairJob = defineJob({
  name: "integrity_repair",
  payload: z.object({ jobId: id, scanId: id, issueIds: z.array(id).max(10_000).nullable() }),
  maxAttempts: 5,
  jobKey: ({ jobId }) => `integrity-repair:${jobId}`,
  // A retry goes on with the issues still open.
  run: ({ jobId, scanId, issueIds }, { deps }) => runBulkRepair({ deps, jobId, scanId, issueIds }),
  afterLastAttempt: ({ jobId }, { deps, reason }) => failBulkRepair({ deps, jobId, error: reason }),
  tracked: {},
});

/** Starts the scheduled integrity scans (admin settings `scanSchedule`) whose time has come. */
export const integrityScheduleJob = defineJob({
  name: "integrity_schedule",
  payload: scheduledPayload,
  schedule: "* * * * *",
  run: (payload, { deps }) => startScheduledScans({ deps, at: tickOf({ payload, now: deps.now() }) }),
});

/** Keeps the newest `INTEGRITY_SCANS_KEEP` finished integrity scans with their issues. */
export const pruneIntegrityScansJob = defineJob({
  name: "prune_integrity_scans",
  payload: scheduledPayload,
  schedule: "25 4 * * *",
  run: (_payload, { deps }) => pruneIntegrityScans({ deps, keep: deps.env.INTEGRITY_SCANS_KEEP }),
});

/** Deletes objects quarantined by integrity repairs more than 30 days ago. */
export const purgeQuarantineJob = defineJob({
  name: "purge_quarantine",
  payload: scheduledPayload,
  schedule: "17 4 * * *",
  run: (_payload, { deps }) => purgeQuarantine({ deps }),
});
