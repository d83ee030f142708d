import { pruneEndedAnnouncements } from "@meridian/domain/announcements";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneAnnouncementsTask = defineTask(jobContracts.prune_announcements, async (_payload, { deps }) => {
  await pruneEndedAnnouncements({ db: deps.db, now: deps.now(), keepDays: deps.env.ANNOUNCEMENTS_KEEP_DAYS });
});
