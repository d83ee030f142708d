import { emailOutboxCollection } from "@meridian/db";
import type { Deps } from "../deps";
import type { MailTransport } from "./transport";

/**
 * Sends one outbox message unless it was sent already. graphile-worker runs a job in one
 * worker at a time and retries failures with backoff; the stable Message-ID lets receivers
 * drop the rare copy sent again after a crash between sending and recording it.
 */
export async function deliverOutboxEmail(options: { deps: Deps; transport: MailTransport; outboxId: string }): Promise<"sent" | "skipped"> {
  const { deps, transport, outboxId } = options;
  const message = await emailOutboxCollection.get(deps.db, outboxId);
  if (!message || message.doc.status === "sent") return "skipped";
  const messageId = `<${outboxId}@meridian>`;
  try {
    await transport.send({
      from: deps.env.MAIL_FROM,
      to: message.doc.to,
      subject: message.doc.subject,
      text: message.doc.text,
      html: message.doc.html ?? undefined,
      replyTo: message.doc.replyTo ?? undefined,
      messageId,
    });
  } catch (error) {
    await emailOutboxCollection.update(deps.db, outboxId, (doc) => ({
      ...doc,
      attempts: doc.attempts + 1,
      lastError: String((error as Error).message ?? error).slice(0, 500),
    }));
    throw error;
  }
  await emailOutboxCollection.update(deps.db, outboxId, (doc) => ({
    ...doc,
    status: "sent",
    attempts: doc.attempts + 1,
    sentAt: deps.now().toISOString(),
    messageId,
    lastError: null,
  }));
  return "sent";
}
