import { pruneExpiredSessions } from "@meridian/domain/auth";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneSessionsTask = defineTask(jobContracts.prune_sessions, async (_payload, { deps }) => {
  await pruneExpiredSessions({ db: deps.db, now: deps.now() });
});
