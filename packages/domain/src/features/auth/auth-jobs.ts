import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { sendApiKeyExpiryNotices } from "./api-key-expiry-notices";
import { pruneRateLimitEvents } from "../../platform/rate-limit";
import { pruneExpiredSessions } from "./sessions";

export const pruneRateLimitsJob = defineJob({
  name: "prune_rate_limits",
  payload: scheduledPayload,
  schedule: "0 * * * *",
  run: (_payload, { deps }) => pruneRateLimitEvents({ db: deps.db, now: deps.now() }),
});

/** Removes expired sessions: an account that never signs in again would keep them for good. */
export const pruneSessionsJob = defineJob({
  name: "prune_sessions",
  payload: scheduledPayload,
  schedule: "40 * * * *",
  run: (_payload, { deps }) => pruneExpiredSessions({ db: deps.db, now: deps.now() }),
});

/** Emails each user once about their API keys expiring within 7 days (`api-key-expiry-notices.ts`). */
export const apiKeyExpiryNoticesJob = defineJob({
  name: "api_key_expiry_notices",
  payload: scheduledPayload,
  schedule: "5 * * * *",
  run: (_payload, { deps }) => sendApiKeyExpiryNotices({ deps, now: deps.now() }),
});
