import os from "node:os";
import { SERVER_VERSION } from "@meridian/config";
import { tables, usersCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { enqueueEmail } from "../email/outbox";

/** The spec's "server start notifies administrators": one email per server admin, via the outbox. */
export async function notifyServerStart(options: { deps: Deps; listeningOn: string }): Promise<number> {
  const { deps } = options;
  const admins = await usersCollection.findMany(deps.db, sql`${tables.users.doc}->'roles' ? 'serverAdmin'`, undefined, 1000);
  const recipients = admins.filter((admin) => admin.doc.notificationPreferences.email && admin.doc.notificationPreferences.systemEvents);
  const startedAt = deps.now().toISOString();
  await deps.db.transaction(async (tx) => {
    for (const admin of recipients) {
      await enqueueEmail(tx, {
        kind: "server_started",
        to: admin.doc.email,
        subject: `Meridian ${SERVER_VERSION} started on ${os.hostname()}`,
        text: [
          `Hello ${admin.doc.name},`,
          "",
          `A Meridian server (version ${SERVER_VERSION}) started at ${startedAt} on host ${os.hostname()} and is listening on ${options.listeningOn}.`,
          "",
          "You receive this because you are a server administrator with system-event emails enabled.",
        ].join("\n"),
      });
    }
  });
  return recipients.length;
}
