import { announceStarted } from "@meridian/domain/announcements";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const announcementStartedTask = defineTask(jobContracts.announcement_started, async (payload, { deps }) => {
  await announceStarted({ deps, announcementId: payload.announcementId });
});
