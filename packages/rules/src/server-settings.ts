import { z } from "zod";
import { isCronExpression } from "./cron";
import { fieldMessage, issuePredicate, type IssueDetails } from "./validation-messages";

/**
 * The administrators' settings (`GET|PUT /api/v1/admin/settings`): the API validates with these
 * schemas and the settings page checks each field with them as it is typed, so both say the same.
 */

const versionPattern = /^\d+(\.\d+){0,3}$/;

/** A schedule: five cron fields in UTC, or null for never. Its messages name it, as a nested field's label would not. */
const cronSchema = (name: string) =>
  z
    .string()
    .trim()
    .max(100, `${name} must have at most 100 characters`)
    .regex(/^(\S+\s+){4}\S+$/, { error: `${name} must be a cron expression of five fields: minute hour day month weekday (UTC)`, abort: true })
    .refine(isCronExpression, `${name} must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC)`)
    .nullable();

export const serverSettingsSchema = z
  .object({
    minimumPluginVersion: z.string().regex(versionPattern, "must be numbers separated by dots, such as 3.8.0.0").nullable(),
    staleInProgressHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 30),
    staleAssignedHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 30),
    heartbeatTimeoutSeconds: z.number().int().min(2).max(3600).describe("An observatory silent this long is offline (extension; default 90)"),
    scanSchedule: z
      .strictObject({ quick: cronSchema("The quick scan schedule"), full: cronSchema("The full scan schedule") })
      .describe("When scheduled integrity scans run (cron, UTC; null: never). The full one also checks storage, references and health."),
    backupSchedule: cronSchema("The backup schedule"),
    backupKeepDays: z.number().int().min(1).max(3650),
    backupKeepMin: z.number().int().min(0).max(1000),
  })
  .meta({ id: "ServerSettings" });
export type ServerSettings = z.infer<typeof serverSettingsSchema>;

export const serverSettingsUpdateSchema = z.strictObject(serverSettingsSchema.partial().shape).meta({ id: "ServerSettingsUpdate" });

export const defaultServerSettings: ServerSettings = {
  minimumPluginVersion: null,
  staleInProgressHours: 24,
  staleAssignedHours: 48,
  heartbeatTimeoutSeconds: 90,
  // The spec's recommended monitoring: a quick scan weekly, a full scan with storage check monthly.
  scanSchedule: { quick: "0 3 * * 0", full: "0 4 1 * *" },
  backupSchedule: null,
  backupKeepDays: 30,
  backupKeepMin: 3,
};

type TopLevelSetting = Exclude<keyof ServerSettings, "scanSchedule">;
/** A field of the settings as a form holds it: a top-level setting, or one of the two scan schedules. */
export type SettingField = TopLevelSetting | "scanSchedule.quick" | "scanSchedule.full";

function schemaOf(field: SettingField): z.ZodType {
  if (field === "scanSchedule.quick" || field === "scanSchedule.full")
    return serverSettingsSchema.shape.scanSchedule.shape[field === "scanSchedule.quick" ? "quick" : "full"];
  return serverSettingsSchema.shape[field];
}

/**
 * What the API would say of this value for this field, as the sentence its `errors[]` would
 * carry, or null when the API would take it. The parse is given the server's error map, so the
 * wording does not depend on how the caller configured zod.
 */
export function settingProblem(field: SettingField, value: unknown): string | null {
  const result = schemaOf(field).safeParse(value, { error: (issue) => issuePredicate(issue as IssueDetails) });
  if (result.success) return null;
  const [issue] = result.error.issues;
  return fieldMessage([...field.split("."), ...(issue?.path ?? [])], issue?.message ?? "is not valid");
}
