import { pruneExpiredLinks } from "@meridian/domain/accounts";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneExpiredLinksTask = defineTask(jobContracts.prune_expired_links, async (_payload, { deps }) => {
  await pruneExpiredLinks({ db: deps.db, now: deps.now() });
});
