import fs from "node:fs/promises";
import os from "node:os";
import { SERVER_VERSION } from "@meridian/config";
import type { Deps } from "../deps";
import { notifySystemEvent } from "../notifications/notify";
import { findServerAdmins } from "../users/find-user";
import { inTransaction } from "../transaction";

/**
 * The spec's "server start notifies administrators", once per start of the cluster, not once per
 * replica: the caller decides that it is a cluster start (`joinServerPresence`, no other server
 * running). By email and push, to server admins who want system events.
 */
export async function notifyServerStart(options: { deps: Deps; listeningOn: string }): Promise<number> {
  const { deps } = options;
  return inTransaction(deps, async (t) => {
    const admins = await findServerAdmins(t.tx);
    const startedAt = t.now().toISOString();
    await notifySystemEvent({
      t,
      users: admins,
      event: {
        kind: "server_started",
        subject: `Meridian ${SERVER_VERSION} started on ${os.hostname()}`,
        lines: [`A Meridian server (version ${SERVER_VERSION}) started at ${startedAt} on host ${os.hostname()} and is listening on ${options.listeningOn}.`],
        path: "/admin",
      },
    });
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
  await inTransaction(deps, (t) =>
    notifySystemEvent({
      t,
      users: admins,
      event: {
        kind: "star_catalog_missing",
        subject: "Meridian: the plate-solving star catalog is missing",
        lines: [
          `The star catalog directory ${dir} (STAR_CATALOG_DIR) is missing or empty on ${os.hostname()}. Plate solving cannot work until it is restored.`,
        ],
        path: "/admin",
        priority: 1,
      },
    }),
  );
  return false;
}
