import { ANNOUNCEMENT_STARTED_TASK, announceStarted } from "@meridian/domain";
import { z } from "zod";
import { defineTask } from "../define-task";

export const announcementStartedTask = defineTask(ANNOUNCEMENT_STARTED_TASK, z.object({ announcementId: z.string().min(1) }), async (payload, { deps }) => {
  await announceStarted({ deps, announcementId: payload.announcementId });
});
