import { jobContracts, pruneExpiredLinks } from "@meridian/domain";
import { defineTask } from "../define-task";

export const pruneExpiredLinksTask = defineTask(jobContracts.prune_expired_links, async (_payload, { deps }) => {
  await pruneExpiredLinks({ db: deps.db, now: deps.now() });
});
