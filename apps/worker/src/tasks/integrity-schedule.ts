import { startScheduledScans } from "@meridian/domain/integrity";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";
import { tickOf } from "../cron-tick";

export const integrityScheduleTask = defineTask(jobContracts.integrity_schedule, async (payload, { deps }) => {
  await startScheduledScans({ deps, at: tickOf(payload, deps.now()) });
});
