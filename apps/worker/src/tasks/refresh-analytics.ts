import { refreshAnalytics } from "@meridian/domain/analytics";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";

export const refreshAnalyticsTask = defineTask(jobContracts.refresh_analytics, async (_payload, { deps }) => {
  await refreshAnalytics(deps);
});
