import { emailOutboxCollection, emailRecipientKey } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { addKeyedJobOrFollower } from "../jobs/add-job";
import { inTransaction, type InTransaction } from "../transaction";

export interface OutgoingEmail {
  kind: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
}

/**
 * Makes sure a `send_email` job will deliver the recipient's pending messages: one job per
 * recipient, not per message. The job key folds a burst into one waiting job; a job already
 * running leaves its key to a new one, which runs after it, because the recipient's queue runs
 * one of its jobs at a time. A write keeps the waiting job's time (`preserve_run_at`), so a
 * recipient whose server asked to try later is not tried again at each new message; the job itself
 * sets that time (`retryAt`).
 */
export async function queueRecipientDelivery(options: { t: Pick<InTransaction, "tx">; to: string; outboxId: string; retryAt?: Date }) {
  const { t } = options;
  const recipient = emailRecipientKey(options.to);
  // A run under way may already have read the recipient's messages: its follower waits behind it in the queue.
  await addKeyedJobOrFollower({
    t,
    name: "send_email",
    payload: { outboxId: options.outboxId },
    queueName: `email:${recipient}`,
    runAt: options.retryAt,
    jobKey: `email-to:${recipient}`,
    jobKeyMode: options.retryAt ? "replace" : "preserve_run_at",
  });
}

/**
 * Writes the message and its delivery job in the actor's transaction. A recipient's messages are
 * sent one after the other in the order they were written (an observation's "in progress" never
 * before its "assigned"), and other recipients' mail is not held up by them.
 */
export async function enqueueEmail(options: { t: Pick<InTransaction, "tx"> } & OutgoingEmail): Promise<string> {
  const { t, ...email } = options;
  const outboxId = emailOutboxCollection.newId();
  // The row and its job go out together (one round trip); the job runs only once both have committed.
  await Promise.all([
    emailOutboxCollection.insert(
      t.tx,
      {
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
      },
      outboxId,
    ),
    queueRecipientDelivery({ t, to: email.to, outboxId }),
  ]);
  return outboxId;
}

/**
 * Ends the message a recipient's delivery stopped at once every attempt of its `send_email` job (`jobId`, graphile-worker's)
 * ended without finishing (killed while sending it, or thrown past the job's own handling): the oldest pending message of the
 * recipient of `outboxId`, which each attempt tries first. It is marked `failed` with `reason`, its attempts as counted, the
 * spent job is removed, and the recipient's later messages get a new job, so one message that cannot be sent does not hold
 * back the rest. Done once per spent job (its row is locked and must still be spent); answers the message failed.
 */
export async function giveUpRecipientEmail(options: { deps: Deps; jobId: string; outboxId: string; reason: string }): Promise<string | null> {
  const { deps, reason } = options;
  return inTransaction(deps, async (t) => {
    const [spent] = await t.tx.execute(sql`
      select 1 from graphile_worker._private_jobs
       where id = ${options.jobId}::bigint and locked_at is null and attempts >= max_attempts for update`);
    if (!spent) return null;
    const [stuck] = await t.tx.execute<{ id: string; to: string }>(sql`
      select m.id, m.doc->>'to' as to from email_outbox m
       where m.recipient = (select recipient from email_outbox where id = ${options.outboxId}) and m.status = 'pending'
       order by m.seq limit 1 for update`);
    // Removed before the next job is queued, which would otherwise take the spent job's key (and its row).
    await t.tx.execute(sql`delete from graphile_worker._private_jobs where id = ${options.jobId}::bigint`);
    if (!stuck) return null;
    await emailOutboxCollection.patch(t.tx, sql`a.id = ${stuck.id}`, { status: "failed", lastError: reason.slice(0, 500) });
    const [next] = await t.tx.execute<{ id: string }>(sql`
      select id from email_outbox where recipient = (select recipient from email_outbox where id = ${stuck.id}) and status = 'pending'
       order by seq limit 1`);
    if (next) await queueRecipientDelivery({ t, to: stuck.to, outboxId: next.id });
    t.logger.warn({ outboxId: stuck.id, reason }, "an email whose delivery attempts ran out without an end failed");
    return stuck.id;
  });
}
