import { sql } from "drizzle-orm";
import { z } from "zod";
import { defineJob, scheduledPayload } from "../jobs/define-job";
import { deliverRecipientEmails } from "./deliver";
import { giveUpRecipientEmail, queueRecipientDelivery } from "./outbox";
import { pruneEmailOutbox } from "./outbox-retention";
import { mailTransportFor } from "./pooled-transport";

/**
 * Every pending email of the recipient of `outboxId` (the message whose writing queued it), in the order
 * written; keyed and queued by recipient where it is queued (`queueRecipientDelivery`). An unreachable
 * mail server is retried with graphile-worker's backoff (e^attempts s, at most e^10) for about a day.
 */
export const sendEmailJob = defineJob({
  name: "send_email",
  payload: z.object({ outboxId: z.string().min(1) }),
  maxAttempts: 25,
  async run(payload, { deps, attempt }) {
    const outcome = await deliverRecipientEmails({ deps, transport: mailTransportFor(deps), outboxId: payload.outboxId });
    attempt.logger.debug(`emails to the recipient of ${payload.outboxId}: ${outcome.sent} sent, ${outcome.failed} given up`);
  },
  giveUp: ({ deps, jobId, payload, reason }) => giveUpRecipientEmail({ deps, jobId, outboxId: String(payload.outboxId), reason }),
  supersededByKey: {
    // Its own message is queued again, which joins the recipient's newer job.
    async requeue({ t, payload }) {
      const outboxId = typeof payload.outboxId === "string" ? payload.outboxId : null;
      if (!outboxId) return;
      const [message] = await t.tx.execute<{ to: string }>(sql`select doc->>'to' as to from email_outbox where id = ${outboxId}`);
      if (message) await queueRecipientDelivery({ t, to: message.to, outboxId });
    },
  },
});

/** Removes emails sent or given up more than `EMAIL_OUTBOX_KEEP_DAYS` ago. */
export const pruneEmailOutboxJob = defineJob({
  name: "prune_email_outbox",
  payload: scheduledPayload,
  schedule: "50 3 * * *",
  run: async (_payload, { deps }) => void (await pruneEmailOutbox({ db: deps.db, now: deps.now(), keepDays: deps.env.EMAIL_OUTBOX_KEEP_DAYS })),
});
