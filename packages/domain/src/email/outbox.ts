import { emailOutboxCollection, type Executor } from "@meridian/db";
import { addJob } from "../jobs/add-job";

export interface OutgoingEmail {
  kind: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
}

/**
 * Writes the message and its delivery job in the actor's transaction. A recipient's messages share
 * a queue, so they arrive in the order they were written (an observation's "in progress" never
 * before its "assigned"); a message that fails waits for its retry without holding the others.
 */
export async function enqueueEmail(db: Executor, email: OutgoingEmail): Promise<string> {
  const stored = await emailOutboxCollection.insert(db, {
    kind: email.kind,
    to: email.to,
    subject: email.subject,
    text: email.text,
    html: email.html ?? null,
    replyTo: email.replyTo ?? null,
    status: "pending",
    attempts: 0,
    sentAt: null,
    messageId: null,
    lastError: null,
  });
  await addJob(
    db,
    "send_email",
    { outboxId: stored.id },
    { jobKey: `email:${stored.id}`, maxAttempts: 8, queueName: `email:${email.to.trim().toLowerCase()}` },
  );
  return stored.id;
}
