import { pruneRateLimitEvents } from "@meridian/domain/auth";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const pruneRateLimitsTask = defineTask(jobContracts.prune_rate_limits, async (_payload, { deps }) => {
  await pruneRateLimitEvents({ db: deps.db, now: deps.now() });
});
