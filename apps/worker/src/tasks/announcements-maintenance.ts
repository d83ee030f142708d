import { runAnnouncementMaintenance } from "@meridian/domain";
import { z } from "zod";
import { defineTask } from "../define-task";

export const ANNOUNCEMENTS_MAINTENANCE_TASK = "announcements_maintenance";

/** Every minute: expiry is persisted even when nobody reads, and stalled email delivery resumes. */
export const announcementsMaintenanceTask = defineTask(ANNOUNCEMENTS_MAINTENANCE_TASK, z.unknown(), async (_payload, { deps }, helpers) => {
  const outcome = await runAnnouncementMaintenance({ deps });
  if (outcome.expired || outcome.requeued) helpers.logger.info(`announcements: ${outcome.expired} expired, ${outcome.requeued} email deliveries queued again`);
});
