import { z } from "zod";
import { defineJob, scheduledPayload, trackedKind } from "../../platform/jobs/define-job";
import { findJobBySubject, reportJob } from "../../platform/jobs/tracked-jobs";
import { mailTransportFor } from "../../platform/email/pooled-transport";
import { emailJobKey } from "./create";
import { deliverAnnouncementEmails, runAnnouncementMaintenance, skipUnsentAnnouncementEmails } from "./emails";
import { announceStarted } from "./lifecycle";
import { pruneEndedAnnouncements } from "./retention";

const announcement = z.object({ announcementId: z.string().min(1) });

/** An announcement's email fan-out (one of up to a few jobs sharing its recipients); tracked as the announcement's job. */
export const announcementEmailsJob = defineJob({
  name: "announcement_emails",
  payload: announcement,
  maxAttempts: 10,
  // The fan-out's first job; the others are keyed by their index where they are queued.
  jobKey: ({ announcementId }) => emailJobKey({ announcementId }),
  async run(payload, { deps, attempt }) {
    const transport = mailTransportFor(deps);
    // Claims name the graphile-worker id holding this job, so a survivor can free them if this worker dies.
    const claimedBy = attempt.job.locked_by ?? undefined;
    const outcome = await deliverAnnouncementEmails({ deps, transport, announcementId: payload.announcementId, claimedBy });
    attempt.logger.debug(`announcement ${payload.announcementId}: ${outcome.sent} sent, ${outcome.skipped} skipped`);
  },
  // The last attempt failed: the fan-out's record says so instead of staying "running" forever.
  async afterLastAttempt(payload, { deps, reason }) {
    const tracked = await findJobBySubject({ db: deps.db, kind: trackedKind("announcement_emails"), subjectId: payload.announcementId });
    if (tracked) await reportJob({ deps, jobId: tracked.id, status: "failed", error: reason.slice(0, 500) });
  },
  tracked: {
    release: ({ deps, job }) => skipUnsentAnnouncementEmails({ deps, announcementId: job.doc.subjectId! }),
    // Queued again by the minute sweep while any of its messages is due.
    selfHealing: true,
  },
});

export const announcementStartedJob = defineJob({
  name: "announcement_started",
  payload: announcement,
  maxAttempts: 10,
  jobKey: ({ announcementId }) => `announcement-started:${announcementId}`,
  run: ({ announcementId }, { deps }) => announceStarted({ deps, announcementId }),
});

/** Every minute: expiry is persisted even when nobody reads, and stalled email delivery resumes. */
export const announcementsMaintenanceJob = defineJob({
  name: "announcements_maintenance",
  payload: scheduledPayload,
  schedule: "* * * * *",
  async run(_payload, { deps, attempt }) {
    const outcome = await runAnnouncementMaintenance({ deps });
    if (outcome.expired || outcome.requeued)
      attempt.logger.info(`announcements: ${outcome.expired} expired, ${outcome.requeued} email deliveries queued again`);
  },
});

/** Removes announcements that ended (cancelled, or past their expiry) more than `ANNOUNCEMENTS_KEEP_DAYS` ago, with their recipients. */
export const pruneAnnouncementsJob = defineJob({
  name: "prune_announcements",
  payload: scheduledPayload,
  schedule: "55 4 * * *",
  run: async (_payload, { deps }) => void (await pruneEndedAnnouncements({ db: deps.db, now: deps.now(), keepDays: deps.env.ANNOUNCEMENTS_KEEP_DAYS })),
});
