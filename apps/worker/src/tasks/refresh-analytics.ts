import { jobContracts, refreshAnalytics } from "@meridian/domain";
import { defineTask } from "../define-task";

export const refreshAnalyticsTask = defineTask(jobContracts.refresh_analytics, async (_payload, { deps }) => {
  await refreshAnalytics(deps);
});
