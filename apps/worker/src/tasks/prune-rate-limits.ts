import { pruneRateLimitEvents } from "@meridian/domain";
import { z } from "zod";
import { defineTask } from "../define-task";

export const pruneRateLimitsTask = defineTask("prune_rate_limits", z.unknown(), async (_payload, { deps }) => {
  await pruneRateLimitEvents(deps.db, deps.now());
});
