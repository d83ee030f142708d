import os from "node:os";
import { SERVER_VERSION } from "@meridian/config";
import type { Deps } from "../../platform/deps";
import { notifySystemEvent } from "../notifications";
import { findServerAdmins } from "../users";
import { inTransaction } from "../../platform/transaction";

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
