import type { ServerSettings, SettingField } from "@meridian/rules/settings";
import { asNumber } from "../lib/number-text";

/** Every field of the settings form, as the text its input holds. */
export type SettingsText = Record<SettingField, string>;

/** The fields in the order the form shows them (and focuses the first refused one). */
export const settingFields: readonly SettingField[] = [
  "minimumPluginVersion",
  "heartbeatTimeoutSeconds",
  "staleInProgressHours",
  "staleAssignedHours",
  "scanSchedule.quick",
  "scanSchedule.full",
  "backupSchedule",
  "backupKeepDays",
  "backupKeepMin",
];
const numberFields = ["heartbeatTimeoutSeconds", "staleInProgressHours", "staleAssignedHours", "backupKeepDays", "backupKeepMin"] as const;

/** The form's text for the stored settings. */
export function settingsText(settings: ServerSettings): SettingsText {
  return {
    minimumPluginVersion: settings.minimumPluginVersion ?? "",
    heartbeatTimeoutSeconds: String(settings.heartbeatTimeoutSeconds),
    staleInProgressHours: String(settings.staleInProgressHours),
    staleAssignedHours: String(settings.staleAssignedHours),
    "scanSchedule.quick": settings.scanSchedule.quick ?? "",
    "scanSchedule.full": settings.scanSchedule.full ?? "",
    backupSchedule: settings.backupSchedule ?? "",
    backupKeepDays: String(settings.backupKeepDays),
    backupKeepMin: String(settings.backupKeepMin),
  };
}

/** What the API is sent for a field's text: empty means none (null) for the version and the schedules; numbers as numbers. */
export function settingValue(field: SettingField, text: string): unknown {
  if ((numberFields as readonly string[]).includes(field)) return asNumber(text);
  return text.trim() || null;
}

/**
 * The update for the fields whose text differs from the stored settings: only those, so two
 * administrators changing different settings do not undo each other. The two scan schedules go
 * together, as the API takes them.
 */
export function settingsUpdate(saved: SettingsText, current: SettingsText): Record<string, unknown> {
  const update: Record<string, unknown> = {};
  for (const field of Object.keys(current) as SettingField[]) {
    if (current[field] === saved[field] || field.startsWith("scanSchedule.")) continue;
    update[field] = settingValue(field, current[field]);
  }
  if (current["scanSchedule.quick"] !== saved["scanSchedule.quick"] || current["scanSchedule.full"] !== saved["scanSchedule.full"])
    update.scanSchedule = {
      quick: settingValue("scanSchedule.quick", current["scanSchedule.quick"]),
      full: settingValue("scanSchedule.full", current["scanSchedule.full"]),
    };
  return update;
}
