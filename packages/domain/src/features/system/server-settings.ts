import { settingsCollection, type Executor } from "@meridian/db";
import { compareVersions } from "@meridian/rules";
import { defaultServerSettings, serverSettingsSchema, serverSettingsUpdateSchema, type ServerSettings } from "@meridian/rules/settings";
import { sql } from "drizzle-orm";
import type { Actor } from "../../platform/actor";
import { recordAudit } from "../audit";
import type { Deps } from "../../platform/deps";
import { publishObservatoryEvent } from "../../platform/events/publish";
import { inTransaction, type InTransaction } from "../../platform/transaction";

const SETTINGS_ID = "server";

// The schemas live in @meridian/rules, so the settings page checks fields with the API's own rules and wording.
export { serverSettingsSchema, serverSettingsUpdateSchema, type ServerSettings };

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
  return inTransaction(deps, async (t) => {
    // Two admins saving at once: the lock makes the second apply its fields on top of the first's.
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:server-settings'))`);
    const before = await readServerSettings(t.tx);
    const after = { ...before, ...update };
    if (await settingsCollection.get(t.tx, SETTINGS_ID)) await settingsCollection.update(t.tx, SETTINGS_ID, () => ({ value: after }));
    else await settingsCollection.insert(t.tx, { value: after }, SETTINGS_ID);
    const changed = (Object.keys(update) as Array<keyof ServerSettings>).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    if (changed.length > 0) {
      const scope = { kind: "system" as const, id: "system", name: null };
      await recordAudit({
        t,
        actor: actor.kind === "user" ? actor : null,
        action: "settings.updated",
        target: { kind: "settings", id: SETTINGS_ID, name: "Server settings" },
        scope,
        before: Object.fromEntries(changed.map((key) => [key, before[key]])),
        after: Object.fromEntries(changed.map((key) => [key, after[key]])),
      });
    }
    if (changed.includes("minimumPluginVersion") && after.minimumPluginVersion) await tellOutdatedPlugins({ t, settings: after });
    return after;
  });
}

/**
 * A raised minimum reaches every connected plugin below it at once (`update_required`, contract:
 * Plugin protocol description), on whichever process holds its connection; the connection repeats
 * it every 4 hours while the plugin stays below.
 */
async function tellOutdatedPlugins(options: { t: Pick<InTransaction, "tx">; settings: ServerSettings }) {
  const { t, settings } = options;
  const rows = await t.tx.execute<{ id: string; plugin_version: string | null }>(sql`
    select id, doc->'connection'->>'pluginVersion' as plugin_version from observatories
     where (doc->'connection'->>'online')::boolean and doc->>'removedAt' is null`);
  const outdated = rows.filter((row) => !pluginIsCurrent({ settings, pluginVersion: row.plugin_version })).map((row) => row.id);
  if (outdated.length > 0)
    await publishObservatoryEvent({
      t,
      observatoryIds: outdated,
      event: { type: "update_required", data: { minimumPluginVersion: settings.minimumPluginVersion! } },
    });
}

/** Whether a plugin of this version may take work under the settings. */
export const pluginIsCurrent = ({ settings, pluginVersion }: { settings: ServerSettings; pluginVersion: string | null | undefined }): boolean =>
  !settings.minimumPluginVersion || (pluginVersion != null && compareVersions(pluginVersion, settings.minimumPluginVersion) >= 0);
