import { backupsCollection, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { tickOf } from "../../platform/jobs/cron-tick";
import { defineJob, scheduledPayload, type JobRelease } from "../../platform/jobs/define-job";
import { endJobForGood } from "../../platform/jobs/job-endings";
import { reportJob } from "../../platform/jobs/tracked-jobs";
import { deleteBackupObjects } from "./archive-io";
import { failBackup, runBackup, runBackupVerification, type ThenCleanup } from "./backups";
import { releaseRestore, RestoreRefused, runRestore } from "./restore";
import { startScheduledBackup } from "./schedule";

const id = z.string().min(1);

/** Whether an attempt of the job still runs (graphile-worker holds it locked): a killed one is unlocked by the recovery. */
async function attemptRunning(db: Executor, jobId: string) {
  const [running] = await db.execute(
    sql`select 1 from graphile_worker._private_jobs g where g.payload->>'jobId' = ${jobId} and g.locked_at is not null limit 1`,
  );
  return running !== undefined;
}

/**
 * A backup fails at once (the next may start), its objects deleted; but an attempt still running
 * may upload a part after that, so the release is done only once no attempt runs: the attempt
 * deletes what it wrote when it finds its job ended, and for one killed first, the sweep after the
 * recovery deletes the backup's objects again (a failed backup's, never a verified one's).
 */
const releaseBackup: JobRelease = async ({ deps, job, reason, payload }) => {
  const backupId = job.doc.subjectId!;
  await failBackup({ deps, jobId: job.id, backupId, then: (payload?.then as ThenCleanup | null | undefined) ?? null, error: reason });
  if (await attemptRunning(deps.db, job.id)) return "after the attempt";
  const backup = await backupsCollection.get(deps.db, backupId);
  if (backup?.doc.status === "failed") await deleteBackupObjects({ deps, objectKey: backup.doc.objectKey });
};

/** A backup: archive and manifest, then the read-back; `then` names an observation cleanup that waits for it. */
export const backupCreateJob = defineJob({
  name: "backup_create",
  payload: z.object({
    jobId: id,
    backupId: id,
    then: z.object({ cleanupJobId: id, cutoff: z.iso.datetime(), actorId: id.nullable() }).nullable(),
  }),
  maxAttempts: 3,
  // A retry after a crash writes the archive over again; a finished stage is not redone.
  run: ({ jobId, backupId, then }, { deps }) => runBackup({ deps, jobId, backupId, then }),
  afterLastAttempt: (payload, { deps, reason }) => endJobForGood({ deps, jobId: payload.jobId, reason, payload }),
  tracked: { release: releaseBackup, releaseAfterAttempt: true, carriesFollowUp: true },
});

/** Reads a backup's archive back against its manifest. */
export const backupVerifyJob = defineJob({
  name: "backup_verify",
  payload: z.object({ jobId: id, backupId: id }),
  maxAttempts: 3,
  run: ({ jobId, backupId }, { deps }) => runBackupVerification({ deps, jobId, backupId }),
  afterLastAttempt: ({ jobId }, { deps, reason }) => reportJob({ deps, jobId, status: "failed", error: reason.slice(0, 500) }),
  tracked: {},
});

/** Replaces the data with a backup's, all or nothing, under maintenance. */
export const backupRestoreJob = defineJob({
  name: "backup_restore",
  payload: z.object({ jobId: id, backupId: id, actorId: id.nullable() }),
  maxAttempts: 3,
  async run(payload, { deps }) {
    try {
      await runRestore({ deps, jobId: payload.jobId, backupId: payload.backupId, actorId: payload.actorId });
    } catch (error) {
      // An unusable backup stays unusable: no retry. Anything else (a crash, a lost connection) is retried from the start.
      if (!(error instanceof RestoreRefused)) throw error;
      await endJobForGood({ deps, jobId: payload.jobId, reason: String(error.message), payload });
    }
  },
  afterLastAttempt: (payload, { deps, reason }) => endJobForGood({ deps, jobId: payload.jobId, reason, payload }),
  tracked: { release: ({ deps, job }) => releaseRestore({ deps, jobId: job.id }) },
});

/** Starts a backup when the admin settings' `backupSchedule` fires. */
export const backupScheduleJob = defineJob({
  name: "backup_schedule",
  payload: scheduledPayload,
  schedule: "* * * * *",
  run: async (payload, { deps }) => void (await startScheduledBackup({ deps, at: tickOf({ payload, now: deps.now() }) })),
});
