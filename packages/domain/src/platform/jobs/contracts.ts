import { z } from "zod";

/**
 * Every background job, in one place: its name, the zod schema of its payload and, for a
 * periodic one, its cron schedule. `addJob` is typed by these, the worker's tasks are defined
 * against them and the crontab is derived from them, so a name or a payload cannot drift
 * between the code that queues a job and the task that runs it.
 */
export interface JobContract<Name extends string = string, Payload extends z.ZodType = z.ZodType> {
  name: Name;
  payload: Payload;
  /** A cron expression (graphile-worker's crontab syntax, UTC) for jobs that run on a schedule. */
  schedule?: string;
}

const defineJob = <Name extends string, Payload extends z.ZodType>(
  name: Name,
  payload: Payload,
  options: { schedule?: string } = {},
): JobContract<Name, Payload> => ({ name, payload, ...options });

const id = z.string().min(1);

/** A push's parts at their longest: Pushover's own limits (title 250, message 1,024 characters), kept for web push too. */
export const PUSH_LIMITS = { title: 250, message: 1024, url: 500 } as const;
/** What graphile-worker passes a scheduled job: `{_cron: {ts, backfilled}}`; nothing of it is used. */
const scheduled = z.unknown();

export const jobContracts = {
  /** Every pending email of the recipient of `outboxId` (the message whose writing queued it), in the order written. */
  send_email: defineJob("send_email", z.object({ outboxId: id })),
  announcement_emails: defineJob("announcement_emails", z.object({ announcementId: id })),
  announcement_started: defineJob("announcement_started", z.object({ announcementId: id })),
  announcements_maintenance: defineJob("announcements_maintenance", scheduled, { schedule: "* * * * *" }),
  prune_rate_limits: defineJob("prune_rate_limits", scheduled, { schedule: "0 * * * *" }),
  /** Removes expired sessions: an account that never signs in again would keep them for good. */
  prune_sessions: defineJob("prune_sessions", scheduled, { schedule: "40 * * * *" }),
  /** Removes password reset and email change links past their hour: each keeps a token's hash, and most are never used. */
  prune_expired_links: defineJob("prune_expired_links", scheduled, { schedule: "20 * * * *" }),
  /** Emails each user once about their API keys expiring within 7 days (`auth/api-key-expiry-notices.ts`). */
  api_key_expiry_notices: defineJob("api_key_expiry_notices", scheduled, { schedule: "5 * * * *" }),
  /** Removes emails sent or given up more than `EMAIL_OUTBOX_KEEP_DAYS` ago. */
  prune_email_outbox: defineJob("prune_email_outbox", scheduled, { schedule: "50 3 * * *" }),
  /** Removes audit log entries written more than `AUDIT_LOG_KEEP_DAYS` ago. */
  prune_audit_log: defineJob("prune_audit_log", scheduled, { schedule: "45 4 * * *" }),
  /** Removes announcements that ended (cancelled, or past their expiry) more than `ANNOUNCEMENTS_KEEP_DAYS` ago, with their recipients. */
  prune_announcements: defineJob("prune_announcements", scheduled, { schedule: "55 4 * * *" }),
  /** Keeps the newest `OBSERVATORY_HISTORY_KEEP` history entries of each observatory. */
  prune_observatory_history: defineJob("prune_observatory_history", scheduled, { schedule: "10 4 * * *" }),
  /** Keeps the newest `INTEGRITY_SCANS_KEEP` finished integrity scans with their issues. */
  prune_integrity_scans: defineJob("prune_integrity_scans", scheduled, { schedule: "25 4 * * *" }),
  /**
   * Removes tracked job records finished more than `JOBS_KEEP_DAYS` ago, never a queued or running one, nor one that a backup
   * or integrity scan still names, the maintenance switch names, or a graphile-worker job may still report to (`jobs/job-retention.ts`).
   */
  prune_tracked_jobs: defineJob("prune_tracked_jobs", scheduled, { schedule: "35 4 * * *" }),
  /** One push notification to one user, over every push channel they have (web push subscriptions, Pushover). */
  send_push: defineJob(
    "send_push",
    z.object({
      userId: id,
      title: z.string().max(PUSH_LIMITS.title),
      message: z.string().max(PUSH_LIMITS.message),
      url: z.string().max(PUSH_LIMITS.url).nullable(),
      priority: z.union([z.literal(-1), z.literal(0), z.literal(1)]),
    }),
  ),
  /** An integrity scan (`integrity_scans` holds its options, checkpoint and progress). */
  integrity_scan: defineJob("integrity_scan", z.object({ scanId: id })),
  /** Repairs a scan's auto-fixable issues (all, or the ones named) one by one; `jobs` holds its progress. */
  integrity_repair: defineJob("integrity_repair", z.object({ jobId: id, scanId: id, issueIds: z.array(id).max(10_000).nullable() })),
  /** Deletes every observation marked at its start (cutoff), with histories, files and objects; `jobs` holds its progress. */
  observation_cleanup: defineJob(
    "observation_cleanup",
    z.object({ jobId: id, cutoff: z.iso.datetime(), actorId: id.nullable(), backupId: id.nullable().optional() }),
  ),
  /** A backup: archive and manifest, then the read-back; `then` names an observation cleanup that waits for it. */
  backup_create: defineJob(
    "backup_create",
    z.object({
      jobId: id,
      backupId: id,
      then: z.object({ cleanupJobId: id, cutoff: z.iso.datetime(), actorId: id.nullable() }).nullable(),
    }),
  ),
  /** Reads a backup's archive back against its manifest. */
  backup_verify: defineJob("backup_verify", z.object({ jobId: id, backupId: id })),
  /** Replaces the data with a backup's, all or nothing, under maintenance. */
  backup_restore: defineJob("backup_restore", z.object({ jobId: id, backupId: id, actorId: id.nullable() })),
  /** Starts a backup when the admin settings' `backupSchedule` fires. */
  backup_schedule: defineJob("backup_schedule", scheduled, { schedule: "* * * * *" }),
  /** Deletes objects quarantined by integrity repairs more than 30 days ago. */
  purge_quarantine: defineJob("purge_quarantine", scheduled, { schedule: "17 4 * * *" }),
  /** Aborts multipart uploads begun more than a day ago (or `olderThanMs`) and never finished: what killed processes left. */
  abort_stale_uploads: defineJob("abort_stale_uploads", z.object({ olderThanMs: z.number().int().min(0).optional() }), { schedule: "30 3 * * *" }),
  /** Starts the scheduled integrity scans (admin settings `scanSchedule`) whose time has come. */
  integrity_schedule: defineJob("integrity_schedule", scheduled, { schedule: "* * * * *" }),
  /** Assigns an observatory its next eligible observation, if it is free; queued by every change that could make one eligible. */
  /** One attempt at copying a file to its observation's storage destination (`files.doc.deliveries` holds its state). */
  deliver_file: defineJob("deliver_file", z.object({ fileId: id, destinationId: id })),
  dispatch_observatory: defineJob("dispatch_observatory", z.object({ observatoryId: id })),
  /** One frame's analysis (header, stars, plate solve, grade): `analysisId` names the request it answers (`frames/analyse-frame.ts`). */
  analyse_frame: defineJob("analyse_frame", z.object({ fileId: id, analysisId: id })),
  /** The minute sweep: dispatch for every connected observatory (darkness beginning needs no event), heartbeats missed, stale observations. */
  observations_maintenance: defineJob("observations_maintenance", scheduled, { schedule: "* * * * *" }),
  /** Recomputes the analytics summary every minute, so no request counts a table. */
  refresh_analytics: defineJob("refresh_analytics", scheduled, { schedule: "* * * * *" }),
  prune_realtime_events: defineJob("prune_realtime_events", scheduled, { schedule: "*/10 * * * *" }),
  /** Fails the long jobs whose every attempt ended without finishing (a killed worker never reports) and releases what they held. */
  reconcile_jobs: defineJob("reconcile_jobs", scheduled, { schedule: "* * * * *" }),
};

export type JobName = keyof typeof jobContracts;
export type JobPayload<Name extends JobName> = z.input<(typeof jobContracts)[Name]["payload"]>;

/** graphile-worker's crontab, one line per scheduled job. */
export function jobCrontab(): string {
  return Object.values(jobContracts)
    .flatMap((contract: JobContract) => (contract.schedule ? [`${contract.schedule} ${contract.name}`] : []))
    .join("\n");
}

/** The names other code already knows these jobs by. */
export const SEND_EMAIL_TASK = jobContracts.send_email.name;
