import { announcementsCollection, type AnnouncementDoc, type Executor } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { invalidateCaches } from "../../platform/cache/request-caches";
import { AppError, fieldError } from "../../platform/errors";
import { publishUserEvent, publishToAnnouncementRecipients } from "../../platform/events/publish";
import { announcementColumns, presentAnnouncement, toAnnouncementRow, type AnnouncementRow } from "./present";
import { FORBIDDEN_IN_TEXT } from "./schemas";
import { requireSender, type AnnouncementScopeRef } from "./scope-access";
import { recipientsOf } from "./recipient-rows";
import { publishDeliveryProgress, senderUserIds } from "./senders";
import { sendMotdToObservatory } from "./observatory-motd";
import { assertTransition, mayMoveTo, type AnnouncementStatus } from "./status";
import { inTransaction, type InTransaction } from "../../platform/transaction";

/**
 * active → expired for every announcement whose expiry has passed without full
 * acknowledgment. Run before each read of announcements and by a periodic job, so stored
 * statuses are right even when nobody reads. Cheap when nothing is due (partial index).
 */
export async function expireDueAnnouncements(options: { deps: Deps; announcementId?: string }): Promise<string[]> {
  const { deps } = options;
  const now = deps.now();
  const only = options.announcementId ? sql`and id = ${options.announcementId}` : sql``;
  const nowIso = now.toISOString();
  const rows = await announcementsCollection.patch<{ id: string }>(
    deps.db,
    sql`${mayMoveTo({ to: "expired", column: sql`a.status` })} and a.expires_at is not null and a.expires_at <= ${nowIso}::timestamptz ${only}`,
    { status: "expired", expiredAt: nowIso },
    { at: now },
  );
  // Committed on its own (list reads run this first, and most find nothing due); the news of what expired follows together.
  if (rows.length > 0) {
    await inTransaction(deps, async (t) => {
      for (const row of rows) {
        await publishToAnnouncementRecipients({ t, announcementId: row.id, event: { type: "announcement.expired", data: { id: row.id } } });
      }
      await invalidateCaches({ t, change: { kind: "announcements" } });
    });
  }
  return rows.map((row) => row.id);
}

/** Loads an announcement of the given scope, locked when asked; another scope's id is 404. */
export async function loadAnnouncement(options: {
  db: Executor;
  ref: AnnouncementScopeRef;
  announcementId: string;
  forUpdate?: boolean;
}): Promise<AnnouncementRow> {
  const { db, ref, announcementId } = options;
  const [record] = await db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())} from announcements a
     where a.id = ${announcementId} and a.scope = ${ref.scope} and a.scope_id is not distinct from ${ref.scopeId}
     ${options.forUpdate ? sql`for update` : sql``}`);
  if (!record) throw new AppError("NOT_FOUND", "No such announcement");
  return toAnnouncementRow(record);
}

/** active → cancelled, with a non-blank reason, who and when. */
export async function cancelAnnouncement(options: {
  deps: Deps;
  actor: UserActor;
  ref: AnnouncementScopeRef;
  announcementId: string;
  reason: string | undefined;
}) {
  const { deps, actor, ref, announcementId } = options;
  const now = deps.now();
  // Committed on its own: a refused cancellation must not roll the expiry back with it.
  await expireDueAnnouncements({ deps, announcementId });
  return inTransaction(deps, async (t) => {
    const access = await requireSender({ db: t.tx, actor, ref });
    const current = await loadAnnouncement({ db: t.tx, ref, announcementId, forUpdate: true });
    const reason = options.reason?.trim();
    if (!reason)
      throw new AppError("REASON_REQUIRED", "A cancellation needs a reason", { errors: [fieldError({ path: "reason", predicate: "must not be blank" })] });
    if (FORBIDDEN_IN_TEXT.test(reason))
      throw new AppError("VALIDATION_FAILED", "The reason is not valid", {
        errors: [fieldError({ path: "reason", predicate: "must not contain control characters" })],
      });
    assertTransition({ from: current.status as AnnouncementStatus, to: "cancelled" });
    const [cancelled] = await markCancelled(t, sql`a.id = ${announcementId}`, { reason, at: now.toISOString(), by: actor.id });
    await invalidateCaches({ t, change: { kind: "announcements" } });
    await recordAudit({
      t,
      actor,
      action: "announcement.cancelled",
      target: { kind: "announcement", id: announcementId, name: current.doc.title },
      scope: ref.scope === "system" ? { kind: "system", id: "system", name: null } : { kind: ref.scope, id: ref.scopeId, name: access.scopeName },
      after: { reason },
    });
    return presentAnnouncement({ row: cancelled!, includeTargets: true });
  });
}

/** Sets the matching announcements cancelled, with why, when and by whom, and tells their recipients; in the actor's transaction. */
async function markCancelled(t: Pick<InTransaction, "tx">, where: SQL, cancellation: { reason: string; at: string; by: string }): Promise<AnnouncementRow[]> {
  const { reason, at, by } = cancellation;
  const records = await announcementsCollection.patch(
    t.tx,
    sql`${where} and ${mayMoveTo({ to: "cancelled", column: sql`a.status` })}`,
    { status: "cancelled", cancellationReason: reason, cancelledAt: at, cancelledBy: by },
    { at: new Date(at), returning: sql.raw(announcementColumns()) },
  );
  const rows = records.map(toAnnouncementRow);
  for (const row of rows) {
    await publishToAnnouncementRecipients({
      t,
      announcementId: row.id,
      event: { type: "announcement.cancelled", data: { id: row.id, reason, cancelledAt: at } },
    });
  }
  return rows;
}

/**
 * Acknowledges for the actor; idempotent. The recipient row and the announcement's counter
 * change in one transaction, and the last acknowledgment moves the announcement to
 * acknowledged. Non-recipients get 404; cancelled, expired and not yet started announcements 409.
 */
export async function acknowledgeAnnouncement(options: { deps: Deps; actor: UserActor; ref: AnnouncementScopeRef; announcementId: string }) {
  const { deps, actor, ref, announcementId } = options;
  const now = deps.now();
  const nowIso = now.toISOString();
  // Committed on its own: the 409 for an expired announcement must not roll the expiry back.
  await expireDueAnnouncements({ deps, announcementId });
  return inTransaction(deps, async (t) => {
    const [recipient] = await t.tx.execute<{ acknowledged_at: string | null; status: string; starts_at: string; scope: string; scope_id: string | null }>(sql`
      select r.acknowledged_at, a.status, a.starts_at, a.scope, a.scope_id
        from announcement_recipients r join announcements a on a.id = r.announcement_id
       where r.id = ${`${announcementId}:${actor.id}`} and a.scope = ${ref.scope} and a.scope_id is not distinct from ${ref.scopeId}
       for update of r`);
    if (!recipient) throw new AppError("NOT_FOUND", "No such announcement for you");
    if (recipient.acknowledged_at) return { acknowledgedAt: new Date(recipient.acknowledged_at).toISOString() };
    if (recipient.status !== "active") throw new AppError("INVALID_TRANSITION", `The announcement is ${recipient.status}`);
    if (new Date(recipient.starts_at) > now) throw new AppError("INVALID_TRANSITION", "The announcement has not started yet");
    await t.tx.execute(sql`
      update announcement_recipients
         set acknowledged_at = ${nowIso}::timestamptz, updated_at = ${nowIso}::timestamptz
       where id = ${`${announcementId}:${actor.id}`}`);
    const [counts] = await announcementsCollection.patch<{ acknowledged: number; total: number; doc: AnnouncementDoc }>(
      t.tx,
      sql`a.id = ${announcementId}`,
      acknowledgedBy(1),
      {
        at: now,
        returning: sql`a.acknowledged_count as acknowledged, a.recipient_count as total, a.doc`,
      },
    );
    const data = { id: announcementId, acknowledged: counts!.acknowledged, pending: counts!.total - counts!.acknowledged };
    await invalidateCaches({ t, change: { kind: "pending", userId: actor.id } });
    await publishUserEvent({ t, userIds: await senderUserIds({ db: t.tx, doc: counts!.doc }), event: { type: "announcement.counts", data } });
    await publishUserEvent({ t, userIds: [actor.id], event: { type: "announcement.acknowledged", data: { id: announcementId, acknowledgedAt: nowIso } } });
    return { acknowledgedAt: nowIso };
  });
}

/** Records when the app first showed the actor these announcements; unknown ids are ignored. */
export async function markAnnouncementsSeen(options: { deps: Deps; actor: UserActor; ids: string[] }) {
  const { deps, actor } = options;
  const nowIso = deps.now().toISOString();
  const recipientIds = [...new Set(options.ids)].map((id) => `${id}:${actor.id}`);
  return inTransaction(deps, async (t) => {
    const rows = await t.tx.execute<{ announcement_id: string }>(sql`
      update announcement_recipients
         set seen_at = ${nowIso}::timestamptz, updated_at = ${nowIso}::timestamptz
       where id in (select jsonb_array_elements_text(${JSON.stringify(recipientIds)}::jsonb)) and seen_at is null
       returning announcement_id`);
    await publishDeliveryProgress({ t, announcementIds: rows.map((row) => row.announcement_id) });
    return { seen: rows.length };
  });
}

/** Runs when a scheduled announcement starts: its recipients hear of it then, not at creation. */
export async function announceStarted(options: { deps: Deps; announcementId: string }) {
  const { deps, announcementId } = options;
  await inTransaction(deps, async (t) => {
    const [record] = await t.tx.execute<Record<string, unknown>>(
      sql`select ${sql.raw(announcementColumns())} from announcements a where a.id = ${announcementId}`,
    );
    if (!record) return;
    let row = toAnnouncementRow(record);
    if (row.status !== "active" && row.status !== "acknowledged") return;
    // Ended before it started: its scope's newer announcements pushed it out (ADR 0031).
    if (row.doc.expiresAt && Date.parse(row.doc.expiresAt) <= t.now().getTime()) return;
    if (row.status === "active" && row.doc.deliveryType !== "message") row = await acknowledgeEmailRecipients(t, row, t.now());
    const presented = presentAnnouncement({ row, includeTargets: false });
    await publishToAnnouncementRecipients({ t, announcementId, event: { type: "announcement.created", data: presented } });
    await sendMotdToObservatory({ t, announcement: row.doc, presented });
    await invalidateCaches({ t, change: { kind: "announcements" } });
  });
}

/**
 * `count` more recipients acknowledged; the last one moves an active announcement to acknowledged
 * (the one move of the status table made by a counter rather than by a person).
 */
function acknowledgedBy(count: number) {
  const reachesAll = sql`a.acknowledged_count + ${count}::integer >= a.recipient_count and ${mayMoveTo({ to: "acknowledged", column: sql`a.status` })}`;
  return { acknowledgedCount: sql`a.acknowledged_count + ${count}::integer`, status: sql`case when ${reachesAll} then 'acknowledged' else a.status end` };
}

/** Email recipients count as acknowledged once their announcement starts (at creation, unless scheduled). */
async function acknowledgeEmailRecipients(t: Pick<InTransaction, "tx">, row: AnnouncementRow, now: Date): Promise<AnnouncementRow> {
  const nowIso = now.toISOString();
  const acknowledged = await t.tx.execute(sql`
    update announcement_recipients
       set acknowledged_at = ${nowIso}::timestamptz, updated_at = ${nowIso}::timestamptz
     where ${recipientsOf({ announcementId: row.id })} and acknowledged_at is null
     returning id`);
  const [record] = await announcementsCollection.patch(t.tx, sql`a.id = ${row.id}`, acknowledgedBy(acknowledged.length), {
    at: now,
    returning: sql.raw(announcementColumns()),
  });
  return toAnnouncementRow(record!);
}

/**
 * Ends the acknowledged announcements that `where` picks among those still showing: their expiry
 * becomes now (the wire shows when they stopped showing), their status stays `acknowledged`, and
 * their recipients are told as of an expiry. A scheduled one so ended never starts (`announceStarted`).
 * `where` may name `a.id` in a subquery of its own, ordered and limited (ADR 0031).
 */
export async function endShowingAcknowledged(options: { t: Pick<InTransaction, "tx" | "now">; where: SQL }): Promise<string[]> {
  const { t, where } = options;
  const now = t.now();
  const ended = await announcementsCollection.patch<{ id: string }>(
    t.tx,
    sql`${where} and a.status = 'acknowledged' and (a.expires_at is null or a.expires_at > ${now.toISOString()}::timestamptz)`,
    { expiresAt: now.toISOString() },
    { at: now },
  );
  for (const { id } of ended) {
    await publishToAnnouncementRecipients({ t, announcementId: id, event: { type: "announcement.expired", data: { id } } });
  }
  return ended.map((row) => row.id);
}

/**
 * Cancels every active announcement of an observatory, organization or project that is being removed, in
 * the deleting transaction: recipients keep a record that says why, and no sender is left
 * with announcements whose scope is gone. Its acknowledged ones stop showing (they cannot be
 * cancelled): no banner or count is left from a scope that is gone.
 */
export async function cancelScopeAnnouncements(options: {
  t: Pick<InTransaction, "tx" | "now" | "caches" | "cacheChanges">;
  actor: UserActor;
  scope: "observatory" | "organization" | "project";
  scopeId: string;
  reason: string;
}) {
  const { t, actor, scope, scopeId, reason } = options;
  const inScope = sql`a.scope = ${scope} and a.scope_id = ${scopeId}`;
  const cancelled = await markCancelled(t, sql`${inScope} and a.status = 'active'`, {
    reason,
    at: t.now().toISOString(),
    by: actor.id,
  });
  const ended = await endShowingAcknowledged({ t, where: inScope });
  if (cancelled.length > 0 || ended.length > 0) await invalidateCaches({ t, change: { kind: "announcements" } });
  return cancelled.length;
}

/**
 * Takes an account being disabled out of the open announcements it has not acknowledged, in the
 * disabling transaction: a disabled account cannot sign in, so it would hold them short of
 * acknowledged forever. Its recipient rows go (the recipients view counts rows, the list and
 * statistics the announcement's counters, and both drop it together), and an announcement it was
 * the last one missing from becomes acknowledged. Acknowledged, expired and cancelled announcements
 * keep it as it was then, and enabling the account again adds it back to none: recipients are
 * resolved when an announcement is created. Only announcements still running are looked at, each
 * row found by its primary key, as the pending list does.
 */
export async function withdrawDisabledRecipient(options: {
  t: Pick<InTransaction, "tx" | "now" | "caches" | "cacheChanges">;
  userId: string;
}): Promise<number> {
  const { t, userId } = options;
  const now = t.now();
  const nowIso = now.toISOString();
  const removed = await t.tx.execute<{ announcement_id: string }>(sql`
    delete from announcement_recipients r
     using announcements a
     where a.status = 'active' and (a.expires_at is null or a.expires_at > ${nowIso}::timestamptz)
       and r.id = a.id || ':' || ${userId} and r.acknowledged_at is null
    returning r.announcement_id`);
  if (removed.length === 0) return 0;
  const ids = removed.map((row) => row.announcement_id);
  const reachesAll = sql`a.acknowledged_count >= a.recipient_count - 1 and ${mayMoveTo({ to: "acknowledged", column: sql`a.status` })}`;
  const changed = await announcementsCollection.patch<{ id: string; acknowledged: number; total: number; doc: AnnouncementDoc }>(
    t.tx,
    sql`a.id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
    { recipientCount: sql`a.recipient_count - 1`, status: sql`case when ${reachesAll} then 'acknowledged' else a.status end` },
    { at: now, returning: sql`a.id, a.acknowledged_count as acknowledged, a.recipient_count as total, a.doc` },
  );
  for (const row of changed) {
    const data = { id: row.id, acknowledged: row.acknowledged, pending: row.total - row.acknowledged };
    await publishUserEvent({ t, userIds: await senderUserIds({ db: t.tx, doc: row.doc }), event: { type: "announcement.counts", data } });
  }
  await invalidateCaches({ t, change: { kind: "announcements" } });
  return changed.length;
}
