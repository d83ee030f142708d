import { jobContracts, pruneRateLimitEvents } from "@meridian/domain";
import { defineTask } from "../define-task";

export const pruneRateLimitsTask = defineTask(jobContracts.prune_rate_limits, async (_payload, { deps }) => {
  await pruneRateLimitEvents({ db: deps.db, now: deps.now() });
});
