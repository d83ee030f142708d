import { startScheduledBackup } from "@meridian/domain/backups";
import { jobContracts } from "@meridian/domain/platform";
import { defineTask } from "../define-task";
import { tickOf } from "../cron-tick";

export const backupScheduleTask = defineTask(jobContracts.backup_schedule, async (payload, { deps }) => {
  await startScheduledBackup({ deps, at: tickOf(payload, deps.now()) });
});
