import { emailOutboxCollection, emailRecipientKey, tables } from "@meridian/db";
import { desc, eq } from "drizzle-orm";
import type { TestRuntime } from "./test-runtime";
import type { TestServer } from "./test-server";
import { until } from "./until";

/**
 * The app path (`invitations/{token}`) of the newest invitation emailed to `to`, read from the
 * server's (or test runtime's) email outbox, where it is written in the same transaction as the invitation; with
 * `otherThan`, once a newer one than that has been sent.
 */
export async function invitationPathFor(server: TestServer | TestRuntime, to: string, options: { otherThan?: string } = {}): Promise<string> {
  const { db } = "deps" in server ? server.deps : server.server.runtime.deps;
  return until(`an invitation email to ${to}`, async () => {
    const [mail] = await emailOutboxCollection.findMany(db, eq(tables.emailOutbox.recipient, emailRecipientKey(to)), desc(tables.emailOutbox.createdAt), 1);
    const link = mail && mail.doc.kind === "invitation" ? /\/app\/(invitations\/\S+)/.exec(mail.doc.text) : null;
    return link && link[1] !== options.otherThan ? link[1]! : undefined;
  });
}
