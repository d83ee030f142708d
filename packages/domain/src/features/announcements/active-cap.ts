import { tables } from "@meridian/db";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { refuseAtCap } from "../../platform/caps";
import { endShowingAcknowledged } from "./lifecycle";
import type { InTransaction } from "../../platform/transaction";
import type { AnnouncementScopeRef } from "./scope-access";

/**
 * Announcements one scope (the system, an organization, an observatory, a project) may have
 * active at once, scheduled ones included: the next creation there is 409 CONFLICT until one is
 * cancelled, expires or is acknowledged by every recipient. Every pending list starts from the
 * active announcements of every scope (few, so no per-user index is needed), and each creates a
 * row per recipient. Acknowledged ones are not counted (they cannot be cancelled): ADR 0028.
 */
export const MAX_ACTIVE_ANNOUNCEMENTS = 100;

/**
 * Announcements one scope shows at once, active or acknowledged by everyone, until their expiry.
 * An acknowledged one cannot be cancelled, and without an expiry it would show for good, so a
 * creation that would pass this ends the scope's oldest acknowledged ones: their expiry becomes
 * that moment. Banners, observatory cards and a plugin's `motd` start from what shows: ADR 0031.
 */
export const MAX_SHOWING_ANNOUNCEMENTS = 100;

/** The advisory lock creations in one scope take turns under (`pg_advisory_xact_lock(hashtextextended(key, 0))`). */
export const announcementScopeLockKey = (ref: AnnouncementScopeRef) => `announcements:${ref.scope}:${ref.scopeId ?? ""}`;

/**
 * Refuses an announcement past MAX_ACTIVE_ANNOUNCEMENTS in its scope. Creations in one scope
 * count one after another, from the count to the commit, under a transaction's advisory lock on
 * the scope (a system announcement has no row to lock, and a scope's row lock would also queue
 * the scope's other writers); one past its expiry that the minute sweep has not ended yet does
 * not count.
 */
export async function requireRoomForAnnouncement(options: { t: Pick<InTransaction, "tx" | "now">; ref: AnnouncementScopeRef }) {
  const { t, ref } = options;
  await t.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${announcementScopeLockKey(ref)}, 0))`);
  const { announcements } = tables;
  const where = and(
    eq(announcements.scope, ref.scope),
    ref.scopeId === null ? isNull(announcements.scopeId) : eq(announcements.scopeId, ref.scopeId),
    eq(announcements.status, "active"),
    or(isNull(announcements.expiresAt), gt(announcements.expiresAt, t.now())),
  )!;
  const kind = ref.scope === "system" ? "The server" : `The ${ref.scope}`;
  await refuseAtCap({
    t,
    table: announcements,
    where,
    cap: MAX_ACTIVE_ANNOUNCEMENTS,
    refusal: `${kind} has ${MAX_ACTIVE_ANNOUNCEMENTS} active announcements, the most one may have; cancel one or let one expire first`,
  });
}

/**
 * Makes room for one more showing announcement in the scope (MAX_SHOWING_ANNOUNCEMENTS), under the
 * scope's lock that `requireRoomForAnnouncement` took: the oldest acknowledged ones stop showing
 * now (`endShowingAcknowledged`). Started ones go first; a scheduled one only when no started one
 * is left. The active cap was checked first, so at the limit at least one showing announcement is
 * acknowledged.
 */
export async function endOldestAcknowledgedAnnouncements(options: { t: Pick<InTransaction, "tx" | "now">; ref: AnnouncementScopeRef }) {
  const { t, ref } = options;
  const now = t.now().toISOString();
  // `=` rather than `is not distinct from`, which no index serves: the scope's index is read, not every announcement of its kind.
  const inScope = ref.scopeId === null ? sql`a.scope_id is null` : sql`a.scope_id = ${ref.scopeId}`;
  const showing = sql`a.scope = ${ref.scope} and ${inScope}
    and a.status in ('active', 'acknowledged') and (a.expires_at is null or a.expires_at > ${now}::timestamptz)`;
  const [{ count } = { count: 0 }] = await t.tx.execute<{ count: number }>(sql`select count(*)::int as count from announcements a where ${showing}`);
  const excess = count + 1 - MAX_SHOWING_ANNOUNCEMENTS;
  if (excess <= 0) return [];
  return endShowingAcknowledged({
    t,
    where: sql`a.id in (select a.id from announcements a where ${showing} and a.status = 'acknowledged'
      order by a.starts_at > ${now}::timestamptz, a.created_at, a.id limit ${excess})`,
  });
}
