import { settingsCollection, type Executor } from "@meridian/db";
import { compareVersions } from "@meridian/rules";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";
import type { Deps } from "../deps";
import { isCronExpression } from "./cron";

const SETTINGS_ID = "server";
const versionPattern = /^\d+(\.\d+){0,3}$/;
const cronSchema = z
  .string()
  .trim()
  .max(100)
  .regex(/^(\S+\s+){4}\S+$/, "must be a cron expression of five fields")
  .refine(isCronExpression, "must be a valid cron expression (minute hour day month weekday, UTC)")
  .nullable();

/** The administrators' settings (`GET|PUT /api/v1/admin/settings`), every field with its default. */
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
      .strictObject({ quick: cronSchema, full: cronSchema })
      .describe("When scheduled integrity scans run (cron, UTC; null: never). The full one also checks storage, references and health."),
    backupSchedule: cronSchema,
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

/** The stored settings over the defaults; a field the schema no longer accepts falls back to its default. */
export async function readServerSettings(db: Executor): Promise<ServerSettings> {
  const stored = await settingsCollection.get(db, SETTINGS_ID);
  const value = (stored?.doc.value ?? {}) as Record<string, unknown>;
  const settings = { ...defaultServerSettings };
  for (const key of Object.keys(defaultServerSettings) as Array<keyof ServerSettings>) {
    const parsed = serverSettingsSchema.shape[key].safeParse(value[key]);
    if (key in value && parsed.success) (settings as Record<string, unknown>)[key] = parsed.data;
  }
  return settings;
}

export async function updateServerSettings(options: { deps: Deps; actor: Actor; update: Partial<ServerSettings> }): Promise<ServerSettings> {
  const { deps, actor, update } = options;
  return deps.db.transaction(async (tx) => {
    // Two admins saving at once: the lock makes the second apply its fields on top of the first's.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:server-settings'))`);
    const before = await readServerSettings(tx);
    const after = { ...before, ...update };
    if (await settingsCollection.get(tx, SETTINGS_ID)) await settingsCollection.update(tx, SETTINGS_ID, () => ({ value: after }));
    else await settingsCollection.insert(tx, { value: after }, SETTINGS_ID);
    const changed = (Object.keys(update) as Array<keyof ServerSettings>).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    if (changed.length > 0) {
      const scope = { kind: "system" as const, id: "system", name: null };
      await recordAudit(tx, {
        actor: actor.kind === "user" ? actor : null,
        action: "settings.updated",
        target: { kind: "settings", id: SETTINGS_ID, name: "Server settings" },
        scope,
        before: Object.fromEntries(changed.map((key) => [key, before[key]])),
        after: Object.fromEntries(changed.map((key) => [key, after[key]])),
      });
    }
    return after;
  });
}

/** Whether a plugin of this version may take work under the settings. */
export const pluginIsCurrent = (settings: ServerSettings, pluginVersion: string | null | undefined): boolean =>
  !settings.minimumPluginVersion || (pluginVersion != null && compareVersions(pluginVersion, settings.minimumPluginVersion) >= 0);
