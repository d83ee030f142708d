import { deliverAnnouncementEmails, EMAIL_JOB_KIND } from "@meridian/domain/announcements";
import { findJobBySubject, jobContracts, reportJob } from "@meridian/domain/platform";
import { defineTask } from "../define-task";
import { mailTransportFor } from "../mail-transport";

export const announcementEmailsTask = defineTask(jobContracts.announcement_emails, async (payload, { deps }, helpers) => {
  const transport = mailTransportFor(deps);
  try {
    // Claims name the graphile-worker id holding this job, so a survivor can free them if this worker dies.
    const outcome = await deliverAnnouncementEmails({ deps, transport, announcementId: payload.announcementId, claimedBy: helpers.job.locked_by ?? undefined });
    helpers.logger.debug(`announcement ${payload.announcementId}: ${outcome.sent} sent, ${outcome.skipped} skipped`);
  } catch (error) {
    // The last attempt failed: the fan-out's record says so instead of staying "running" forever.
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      const tracked = await findJobBySubject({ db: deps.db, kind: EMAIL_JOB_KIND, subjectId: payload.announcementId });
      if (tracked) await reportJob({ deps, jobId: tracked.id, status: "failed", error: String((error as Error)?.message ?? error).slice(0, 500) });
    }
    throw error;
  }
});
