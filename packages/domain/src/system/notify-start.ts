import fs from "node:fs/promises";
import os from "node:os";
import { SERVER_VERSION } from "@meridian/config";
import { settingsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { notifySystemEvent } from "../notifications/notify";
import { findServerAdmins } from "../users/find-user";

/** Server processes name their database connections with this prefix and a per-process id. */
export const SERVER_APPLICATION_PREFIX = "meridian-server:";
const NOTICE_ID = "cluster-start-notice";

/**
 * The spec's "server start notifies administrators", once per start of the cluster, not once per
 * replica: a process notifies unless another server process is running that started before the
 * last notice (a rolling restart). Two processes starting together take turns under a lock, and
 * the second sees the first's notice. By email and push, to server admins who want system events.
 */
export async function notifyServerStart(options: { deps: Deps; listeningOn: string; applicationName?: string }): Promise<number> {
  const { deps } = options;
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:cluster-start-notice'))`);
    const [others] = await tx.execute<{ oldest: string | null }>(sql`
      select min(backend_start)::text as oldest from pg_stat_activity
       where application_name like ${`${SERVER_APPLICATION_PREFIX}%`} and application_name <> ${options.applicationName ?? ""}`);
    const notice = await settingsCollection.get(tx, NOTICE_ID);
    const lastNotice = (notice?.doc.value as { at?: string } | undefined)?.at;
    if (others?.oldest && lastNotice && new Date(others.oldest) < new Date(lastNotice)) return 0;
    const admins = await findServerAdmins(tx);
    const startedAt = deps.now().toISOString();
    await notifySystemEvent(tx, deps, admins, {
      kind: "server_started",
      subject: `Meridian ${SERVER_VERSION} started on ${os.hostname()}`,
      lines: [`A Meridian server (version ${SERVER_VERSION}) started at ${startedAt} on host ${os.hostname()} and is listening on ${options.listeningOn}.`],
      path: "/admin",
    });
    const value = { at: startedAt };
    if (notice) await settingsCollection.update(tx, NOTICE_ID, () => ({ value }));
    else await settingsCollection.insert(tx, { value }, NOTICE_ID);
    return admins.filter((admin) => admin.doc.notificationPreferences.systemEvents).length;
  });
}

/** The spec's error when the plate-solving star catalog is missing: checked at start when STAR_CATALOG_DIR is set. */
export async function checkStarCatalog(options: { deps: Deps }): Promise<boolean> {
  const { deps } = options;
  const dir = deps.env.STAR_CATALOG_DIR;
  if (!dir) return true;
  const present = await fs
    .readdir(dir)
    .then((entries) => entries.length > 0)
    .catch(() => false);
  if (present) return true;
  deps.logger.error({ starCatalogDir: dir }, "the plate-solving star catalog is missing or empty");
  const admins = await findServerAdmins(deps.db);
  await deps.db.transaction((tx) =>
    notifySystemEvent(tx, deps, admins, {
      kind: "star_catalog_missing",
      subject: "Meridian: the plate-solving star catalog is missing",
      lines: [`The star catalog directory ${dir} (STAR_CATALOG_DIR) is missing or empty on ${os.hostname()}. Plate solving cannot work until it is restored.`],
      path: "/admin",
      priority: 1,
    }),
  );
  return false;
}
