import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { pruneExpiredLinks } from "./link-retention";

/** Removes password reset and email change links past their hour: each keeps a token's hash, and most are never used. */
export const pruneExpiredLinksJob = defineJob({
  name: "prune_expired_links",
  payload: scheduledPayload,
  schedule: "20 * * * *",
  run: (_payload, { deps }) => pruneExpiredLinks({ db: deps.db, now: deps.now() }),
});
