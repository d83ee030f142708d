import { emailOutboxCollection, type EmailOutboxDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { inTransaction } from "../transaction";
import { queueRecipientDelivery } from "./outbox";
import { errorText, isConnectionError, isPermanentRefusal } from "./smtp-errors";
import type { MailTransport } from "./transport";

/** Pending messages read at a time; a recipient rarely has more. */
const BATCH_SIZE = 100;
/** Refusals one message may cost before it is given up on (a 5xx gives up at once). */
const MAX_ATTEMPTS_PER_MESSAGE = 8;

/**
 * Sends every pending message of one recipient (the one `outboxId` was written to), one after
 * the other in the order they were written, each marked sent once SMTP accepted it, while the
 * next ones are sent (`sentMarks`). Only pending rows are sent, so a retried job sends nothing
 * twice; the Message-ID is stable, so receivers drop the rare copy sent again after a crash
 * between sending and recording (the few messages accepted while one mark was being written).
 *
 * A refused message (4xx, "try later") stops the recipient's delivery: the next job is queued for
 * later (e^attempts seconds, as graphile-worker backs off) and the later messages wait behind it,
 * so they never overtake it. After MAX_ATTEMPTS_PER_MESSAGE refusals, or at once on a 5xx, the
 * message is marked failed and the others go on. An unreachable mail server charges no message an
 * attempt: the job fails and graphile-worker retries it. graphile-worker runs one job of a
 * recipient's queue at a time, and other recipients' jobs run beside it.
 */
export async function deliverRecipientEmails(options: {
  deps: Deps;
  transport: MailTransport;
  outboxId: string;
}): Promise<{ sent: number; failed: number; retryAt?: Date }> {
  const { deps, transport } = options;
  const [named] = await deps.db.execute<{ recipient: string }>(sql`select recipient from email_outbox where id = ${options.outboxId}`);
  if (!named) return { sent: 0, failed: 0 };
  let sent = 0;
  let failed = 0;
  let after = 0;
  const marks = sentMarks(deps);
  try {
    for (;;) {
      await marks.settled();
      const batch = await deps.db.execute<{ id: string; seq: string; doc: EmailOutboxDoc }>(sql`
        select id, seq, doc from email_outbox
         where recipient = ${named.recipient} and status = 'pending' and seq > ${after}
         order by seq limit ${BATCH_SIZE}`);
      if (batch.length === 0) return { sent, failed };
      for (const { id, seq, doc } of batch) {
        after = Number(seq);
        try {
          await transport.send({
            from: deps.env.MAIL_FROM,
            to: doc.to,
            subject: doc.subject,
            text: doc.text,
            html: doc.html ?? undefined,
            replyTo: doc.replyTo ?? undefined,
            messageId: messageIdOf(id),
          });
        } catch (error) {
          await marks.settled();
          if (isConnectionError(error)) throw error;
          const charged = await chargeRefusal(deps, id, error);
          if (charged.status === "failed") {
            failed += 1;
            continue;
          }
          // "Try later": this message and the ones after it wait for the next attempt.
          const retryAt = new Date(deps.now().getTime() + retryDelayMs(charged.attempts));
          await inTransaction(deps, (t) => queueRecipientDelivery({ t, to: doc.to, outboxId: id, retryAt }));
          deps.logger.info({ outboxId: id, attempts: charged.attempts, retryAt, err: error }, "email refused for now; retried later");
          return { sent, failed, retryAt };
        }
        marks.add(id);
        sent += 1;
      }
    }
  } finally {
    // Not left running when something else failed: the job's retry must see the marks.
    await marks.idle();
  }
}

const messageIdOf = (id: string) => `<${id}@meridian>`;

/**
 * One process's writer of "sent" marks, shared by every email job of the process, like a group
 * commit: one UPDATE for every message accepted since the last one started, so SMTP never waits
 * for the database and eight recipients' jobs make one write, not eight. A crash can lose only
 * the marks not yet written (the messages accepted during one UPDATE); those are sent again with
 * the same Message-ID.
 */
function markWriter(deps: Deps) {
  let waiting: Array<{ id: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  let writing = false;
  const write = () => {
    if (writing || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    writing = true;
    const ids = batch.map((entry) => entry.id);
    emailOutboxCollection
      .patch(deps.db, sql`a.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) and a.status = 'pending'`, {
        status: "sent",
        attempts: sql`(a.doc->>'attempts')::int + 1`,
        sentAt: deps.now().toISOString(),
        messageId: sql`'<' || a.id || '@meridian>'`,
        lastError: null,
      })
      .then(
        () => batch.forEach((entry) => entry.resolve()),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        writing = false;
        write();
      });
  };
  return (id: string) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ id, resolve, reject });
      write();
    });
}

const markWriters = new WeakMap<Deps, ReturnType<typeof markWriter>>();

/** One job's marks: written by the process's shared writer, waited for at the job's own pace. */
function sentMarks(deps: Deps) {
  let writer = markWriters.get(deps);
  if (!writer) markWriters.set(deps, (writer = markWriter(deps)));
  const mark = writer;
  let pending: Array<Promise<void>> = [];
  let failure: { error: unknown } | undefined;
  const idle = async () => {
    const waitingFor = pending;
    pending = [];
    await Promise.all(waitingFor);
  };
  return {
    // Caught at once (a rejection nobody listens to yet would end the process), thrown at `settled`.
    add: (id: string) => void pending.push(mark(id).catch((error: unknown) => void (failure ??= { error }))),
    idle,
    /** Every mark of this job written; throws if one could not be. */
    async settled() {
      await idle();
      if (failure) throw failure.error;
    },
  };
}

/** Records a refusal against the message; whether it was given up on (5xx, or out of attempts), and its attempts. */
async function chargeRefusal(deps: Deps, id: string, error: unknown) {
  const attempts = sql`(a.doc->>'attempts')::int + 1`;
  const giveUp = isPermanentRefusal(error) ? sql`true` : sql`${attempts} >= ${MAX_ATTEMPTS_PER_MESSAGE}`;
  const [row] = await emailOutboxCollection.patch<{ status: string; attempts: number }>(
    deps.db,
    sql`a.id = ${id} and a.status = 'pending'`,
    { status: sql`case when ${giveUp} then 'failed' else 'pending' end`, attempts, lastError: errorText({ error, length: 500 }) },
    { returning: sql`a.status, (a.doc->>'attempts')::int as attempts` },
  );
  return { status: row?.status ?? "pending", attempts: row?.attempts ?? 1 };
}

/** graphile-worker's own backoff: e^attempts seconds, at most e^10 (about 6 hours). */
const retryDelayMs = (attempts: number) => Math.round(Math.exp(Math.min(attempts, 10)) * 1000);
