import { describe, expect, it } from "vitest";
import { settingProblem, type SettingField } from "@meridian/rules/settings";
import { validationError } from "../../platform/errors";
import { serverSettingsUpdateSchema } from "./server-settings";
import "../../platform/validation/zod-error-map";

/** The message the API gives for one field of a settings update (tRPC nests the body under `update`), or null. */
function apiMessage(field: SettingField, value: unknown): string | null {
  const [key, nested] = field.split(".") as [string, string | undefined];
  const body = nested ? { [key]: { quick: null, full: null, [nested]: value } } : { [key]: value };
  const result = serverSettingsUpdateSchema.safeParse(body);
  if (result.success) return null;
  const issues = result.error.issues.map((issue) => ({ ...issue, path: ["update", ...issue.path] }));
  return validationError({ issues }).errors?.[0]?.message ?? null;
}

describe("server settings, checked field by field as the settings page does", () => {
  it.each<[SettingField, unknown, string | null]>([
    ["backupSchedule", "every night", "The backup schedule must be a cron expression of five fields: minute hour day month weekday (UTC)."],
    ["backupSchedule", "61 3 * * *", "The backup schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC)."],
    // Jenkins' H is a random value at every parse: such a schedule fires at random minutes.
    ["backupSchedule", "H * * * *", "The backup schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC)."],
    ["backupSchedule", "0 H/2 * * *", "The backup schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC)."],
    ["backupSchedule", "0 3 * * THU", null],
    ["backupSchedule", "0 3 * * *", null],
    ["backupSchedule", null, null],
    ["scanSchedule.quick", "* * *", "The quick scan schedule must be a cron expression of five fields: minute hour day month weekday (UTC)."],
    [
      "scanSchedule.full",
      "0 4 32 * *",
      "The full scan schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC).",
    ],
    ["heartbeatTimeoutSeconds", 1, "Heartbeat timeout seconds must be at least 2."],
    ["heartbeatTimeoutSeconds", "ninety", "Heartbeat timeout seconds must be a number."],
    ["staleAssignedHours", 2.5, "Stale assigned hours must be a whole number."],
    ["backupKeepDays", 0, "Backup keep days must be at least 1."],
    ["backupKeepMin", 1001, "Backup keep min must be at most 1,000."],
    ["minimumPluginVersion", "3.8-beta", "Minimum plugin version must be numbers separated by dots, such as 3.8.0.0."],
    ["minimumPluginVersion", "3.10.0.0", null],
  ])("%s = %j: %s", (field, value, message) => {
    expect(settingProblem(field, value)).toBe(message);
    expect(apiMessage(field, value)).toBe(message);
  });
});
