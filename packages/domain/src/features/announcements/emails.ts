import { announcementsCollection } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import type { MailTransport } from "../../platform/email/transport";
import { addJob } from "../../platform/jobs/add-job";
import { trackedKind } from "../../platform/jobs/define-job";
import { emailJobKey } from "./create";
import { expireDueAnnouncements } from "./lifecycle";
import { announcementColumns, toAnnouncementRow } from "./present";
import { recipientsOf } from "./recipient-rows";
import { publishDeliveryProgress } from "./senders";
import { findJobBySubject, reportJob } from "../../platform/jobs/tracked-jobs";
import { appLink } from "../../platform/email/app-link";
import { isConnectionError, isPermanentRefusal } from "../../platform/email/smtp-errors";
import { inTransaction } from "../../platform/transaction";

const BATCH_SIZE = 50;
/** Senders watching the recipients view hear of delivery progress at most this often. */
const PROGRESS_EVERY_MS = 2_000;
/** A claim older than this belongs to a worker that died; its messages are claimed again. */
const CLAIM_LEASE_SECONDS = 300;
/** Refusals a recipient may cost before they are given up on; the job's backoff spreads them over about an hour. */
const MAX_ATTEMPTS_PER_RECIPIENT = 8;

/**
 * Sends an announcement's emails, one per recipient, in batches claimed with SKIP LOCKED so
 * several jobs (and workers) share the work. Each recipient row records its own delivery: it is
 * marked sent right after its message is handed to SMTP, so a retried or crashed job never
 * sends it again. Only a crash in the instant between the two can repeat one message, and the
 * stable Message-ID lets mail systems drop that copy.
 */
export async function deliverAnnouncementEmails(options: { deps: Deps; transport: MailTransport; announcementId: string; claimedBy?: string }) {
  const { deps, transport, announcementId } = options;
  const claimedBy = options.claimedBy ?? null;
  const [record] = await deps.db.execute<Record<string, unknown>>(
    sql`select ${sql.raw(announcementColumns())} from announcements a where a.id = ${announcementId}`,
  );
  if (!record) return { sent: 0, skipped: 0 };
  const announcement = toAnnouncementRow(record);
  const { doc } = announcement;
  const tracked = await findJobBySubject({ db: deps.db, kind: trackedKind("announcement_emails"), subjectId: announcementId });
  if (announcement.status === "cancelled") {
    const skipped = await deps.db.execute(sql`
      update announcement_recipients set email_state = 'skipped', updated_at = now()
       where ${recipientsOf({ announcementId })} and email_state in ('pending', 'sending') returning id`);
    if (await clearEmailPendingIfDone(deps, announcementId)) await finishTrackedJob(deps, tracked?.id, announcementId);
    return { sent: 0, skipped: skipped.length };
  }
  if (new Date(doc.startsAt) > deps.now()) {
    const runAt = new Date(doc.startsAt);
    await inTransaction(deps, (t) => addJob({ t, name: "announcement_emails", payload: { announcementId }, jobKey: emailJobKey({ announcementId }), runAt }));
    return { sent: 0, skipped: 0 };
  }
  const replyTo = doc.scope === "system" ? deps.env.SUPPORT_EMAIL : doc.createdByEmail;
  const subject = `${doc.severity === "info" ? "" : `[${doc.severity.toUpperCase()}] `}${doc.title}`;
  const link = `\n\n${appLink({ deps, path: "/announcements" })}`;
  const origin = doc.scope === "system" ? "the Meridian administrators" : `${doc.createdByName} (${doc.scope} ${doc.scopeName ?? ""})`.trim();
  let sent = 0;
  // Recipients whose message was refused in this run wait for the job's next attempt (backoff).
  let refused = 0;
  let firstRefusal: unknown;
  // Claims walk the announcement's primary-key range forward: no index over pending rows is needed.
  let cursor = `${announcementId}:`;
  let lastProgressAt = Date.now();
  if (tracked?.doc.status === "queued") await reportJob({ deps, jobId: tracked.id, status: "running", progress: { stage: "sending" } });

  for (;;) {
    const nowIso = deps.now().toISOString();
    const batch = await deps.db.execute<{ id: string; email: string }>(sql`
      with claimed as (
        select r.id from announcement_recipients r
         where ${recipientsOf({ announcementId, alias: "r" })} and r.id > ${cursor}
           and (r.email_state = 'pending'
                or (r.email_state = 'sending' and r.email_claimed_at < ${nowIso}::timestamptz - make_interval(secs => ${CLAIM_LEASE_SECONDS})))
         order by r.id limit ${BATCH_SIZE}
         for update skip locked
      )
      update announcement_recipients r
         set email_state = 'sending', email_claimed_at = ${nowIso}::timestamptz, email_claimed_by = ${claimedBy}
        from claimed, users u
       where r.id = claimed.id and u.id = r.user_id
       returning r.id, u.doc->>'email' as email`);
    if (batch.length === 0) break;
    batch.sort((a, b) => (a.id < b.id ? -1 : 1));
    cursor = batch.at(-1)!.id;
    if (sent > 0 && Date.now() - lastProgressAt >= PROGRESS_EVERY_MS) {
      await inTransaction(deps, (t) => publishDeliveryProgress({ t, announcementIds: [announcementId] }));
      if (tracked) await reportJob({ deps, jobId: tracked.id, progress: await deliveryProgress(deps, announcementId) });
      lastProgressAt = Date.now();
    }
    // Several messages in flight over the pooled connections; each recipient is marked sent as
    // soon as its own message is handed over, so a crash repeats at most the ones in flight.
    const unsent = new Set(batch.map((row) => row.id));
    let unreachable: unknown;
    let next = 0;
    const sendNext = async () => {
      while (next < batch.length && unreachable === undefined) {
        const recipient = batch[next++]!;
        try {
          await transport.send({
            from: deps.env.MAIL_FROM,
            to: recipient.email,
            subject,
            text: `${doc.message}\n\n— ${origin}${link}`,
            replyTo,
            messageId: `<${recipient.id.replace(":", ".")}@meridian>`,
          });
        } catch (error) {
          // The server is unreachable: nobody's fault, nobody is charged; the job retries later.
          if (isConnectionError(error)) {
            unreachable ??= error;
            continue;
          }
          unsent.delete(recipient.id);
          await chargeFailedRecipient(deps, recipient.id, { permanent: isPermanentRefusal(error), error });
          refused += 1;
          firstRefusal ??= error;
          continue;
        }
        unsent.delete(recipient.id);
        const sentAt = deps.now().toISOString();
        await deps.db.execute(sql`
          update announcement_recipients
             set email_state = 'sent', emailed_at = ${sentAt}::timestamptz, updated_at = ${sentAt}::timestamptz, email_claimed_by = null
           where id = ${recipient.id}`);
        sent += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.min(deps.env.EMAIL_SENDS_IN_FLIGHT, batch.length) }, sendNext));
    if (unreachable !== undefined) {
      await releaseClaims(deps, [...unsent]);
      throw unreachable;
    }
  }
  if (sent > 0) await inTransaction(deps, (t) => publishDeliveryProgress({ t, announcementIds: [announcementId] }));
  if (await clearEmailPendingIfDone(deps, announcementId)) await finishTrackedJob(deps, tracked?.id, announcementId);
  else if (tracked) await reportJob({ deps, jobId: tracked.id, progress: await deliveryProgress(deps, announcementId) });
  if (refused > 0) {
    const reason = String((firstRefusal as Error)?.message ?? firstRefusal);
    throw new Error(`${refused} announcement email(s) refused (first: ${reason}); they are retried with the job`, { cause: firstRefusal });
  }
  return { sent, skipped: 0 };
}

/**
 * An email fan-out stopped from the Jobs page: the messages not sent yet are skipped, so no later
 * run (nor the minute sweep) sends them. The announcement itself stays as it is.
 */
export async function skipUnsentAnnouncementEmails(options: { deps: Deps; announcementId: string }) {
  const { deps, announcementId } = options;
  await deps.db.execute(sql`
    update announcement_recipients set email_state = 'skipped', email_claimed_at = null, email_claimed_by = null, updated_at = now()
     where ${recipientsOf({ announcementId })} and email_state in ('pending', 'sending')`);
  await clearEmailPendingIfDone(deps, announcementId);
}

/** What became of each of the announcement's emails so far. */
async function deliveryCounts(deps: Deps, announcementId: string) {
  const [counts] = await deps.db.execute<{ sent: number; failed: number; skipped: number; total: number }>(sql`
    select count(*) filter (where email_state = 'sent')::int as sent, count(*) filter (where email_state = 'failed')::int as failed,
           count(*) filter (where email_state = 'skipped')::int as skipped, count(*) filter (where email_state is not null)::int as total
      from announcement_recipients where ${recipientsOf({ announcementId })}`);
  const { sent = 0, failed = 0, skipped = 0, total = 0 } = counts ?? {};
  return { sent, failed, skipped, total, done: sent + failed + skipped };
}

/** Messages handled (sent, given up on, skipped) out of all the announcement's emails. */
async function deliveryProgress(deps: Deps, announcementId: string) {
  const { done, total } = await deliveryCounts(deps, announcementId);
  return { done, total, stage: "sending" };
}

/** Completes the fan-out's job record with what became of each message; later calls change nothing. */
async function finishTrackedJob(deps: Deps, jobId: string | undefined, announcementId: string) {
  if (!jobId) return;
  const { sent, failed, skipped, total, done } = await deliveryCounts(deps, announcementId);
  await reportJob({ deps, jobId, status: "completed", progress: { done, total, stage: "done" }, result: { sent, failed, skipped } });
}

/**
 * A refused message costs its recipient one attempt, and only that recipient; after
 * MAX_ATTEMPTS_PER_RECIPIENT (or at once for a permanent refusal) they are given up on.
 */
async function chargeFailedRecipient(deps: Deps, id: string, options: { permanent: boolean; error: unknown }) {
  const attempts = sql`email_attempts + 1`;
  const giveUp = options.permanent ? sql`true` : sql`${attempts} >= ${MAX_ATTEMPTS_PER_RECIPIENT}`;
  const lastError = String((options.error as Error)?.message ?? options.error).slice(0, 300);
  await deps.db.execute(sql`
    update announcement_recipients
       set email_state = case when ${giveUp} then 'failed' else 'pending' end,
           email_claimed_at = null, email_claimed_by = null, email_attempts = ${attempts}, email_last_error = ${lastError}, updated_at = now()
     where id = ${id} and email_state = 'sending'`);
}

/** Once no message of the announcement is pending or being sent, the minute sweep stops looking at it. */
async function clearEmailPendingIfDone(deps: Deps, announcementId: string): Promise<boolean> {
  const stillSending = sql`exists (select 1 from announcement_recipients r where ${recipientsOf({ announcementId, alias: "r" })}
    and r.email_state in ('pending', 'sending'))`;
  const cleared = await announcementsCollection.patch(deps.db, sql`a.id = ${announcementId} and a.email_pending and not ${stillSending}`, {
    emailPending: false,
  });
  return cleared.length > 0;
}

/** Gives unsent claims back, uncharged. */
async function releaseClaims(deps: Deps, ids: string[]) {
  await deps.db.execute(sql`
    update announcement_recipients
       set email_state = 'pending', email_claimed_at = null, email_claimed_by = null
     where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) and email_state = 'sending'`);
}

/**
 * The periodic sweep: persists expiry, and queues delivery again for announcements whose emails
 * are still due (a worker died holding the job, or every retry was used up while SMTP was down).
 */
export async function runAnnouncementMaintenance(options: { deps: Deps }) {
  const { deps } = options;
  const now = deps.now();
  const expired = await expireDueAnnouncements({ deps });
  // Delivery under way is harmless to queue again: claims keep jobs from sending a message twice.
  const due = await deps.db.execute<{ announcement_id: string }>(sql`
    select a.id as announcement_id from announcements a
     where a.email_pending and a.starts_at <= ${now.toISOString()}::timestamptz
     order by a.starts_at limit 100`);
  for (const row of due) {
    const announcementId = row.announcement_id;
    await inTransaction(deps, (t) => addJob({ t, name: "announcement_emails", payload: { announcementId }, jobKey: emailJobKey({ announcementId }) }));
  }
  return { expired: expired.length, requeued: due.length };
}
