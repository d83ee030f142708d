import { runAnnouncementMaintenance } from "@meridian/domain/announcements";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

/** Every minute: expiry is persisted even when nobody reads, and stalled email delivery resumes. */
export const announcementsMaintenanceTask = defineTask(jobContracts.announcements_maintenance, async (_payload, { deps }, helpers) => {
  const outcome = await runAnnouncementMaintenance({ deps });
  if (outcome.expired || outcome.requeued) helpers.logger.info(`announcements: ${outcome.expired} expired, ${outcome.requeued} email deliveries queued again`);
});
