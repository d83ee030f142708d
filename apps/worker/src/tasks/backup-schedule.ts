import { jobContracts, startScheduledBackup } from "@meridian/domain";
import { defineTask } from "../define-task";
import { tickOf } from "../cron-tick";

export const backupScheduleTask = defineTask(jobContracts.backup_schedule, async (payload, { deps }) => {
  await startScheduledBackup({ deps, at: tickOf(payload, deps.now()) });
});
