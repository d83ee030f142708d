import { defineJob, scheduledPayload } from "../../platform/jobs/define-job";
import { refreshAnalytics } from "./analytics";

/** Recomputes the analytics summary every minute, so no request counts a table. */
export const refreshAnalyticsJob = defineJob({
  name: "refresh_analytics",
  payload: scheduledPayload,
  schedule: "* * * * *",
  run: (_payload, { deps }) => refreshAnalytics(deps),
});
