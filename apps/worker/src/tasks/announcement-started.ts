import { announceStarted, jobContracts } from "@meridian/domain";
import { defineTask } from "../define-task";

export const announcementStartedTask = defineTask(jobContracts.announcement_started, async (payload, { deps }) => {
  await announceStarted({ deps, announcementId: payload.announcementId });
});
