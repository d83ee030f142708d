import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { cronFiresAt } from "../../platform/system/cron";
import { readServerSettings } from "../system";
import { startBackup } from "./backups";

/**
 * The `backup_schedule` job (every minute, once across workers): starts a backup when
 * `backupSchedule` fires in this minute. Retention (`backupKeepDays`, `backupKeepMin`) runs
 * after it is verified; a backup still running, or a restore queued or running, makes this tick's
 * wait for the next.
 */
export async function startScheduledBackup(options: { deps: Deps; at: Date }): Promise<string | null> {
  const { deps, at } = options;
  const settings = await readServerSettings(deps.db);
  if (!settings.backupSchedule || !cronFiresAt(settings.backupSchedule, at)) return null;
  try {
    return (await startBackup({ deps, actor: null, trigger: "scheduled" })).id;
  } catch (error) {
    // A restore under way takes this tick's turn too: the next firing backs up what it restored.
    if (error instanceof AppError && (error.code === "BACKUP_RUNNING" || error.code === "RESTORE_RUNNING")) return null;
    throw error;
  }
}
