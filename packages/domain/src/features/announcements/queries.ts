import { sql, type SQL } from "drizzle-orm";
import type { PendingEntry } from "../../platform/cache/request-caches";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { resolveObservatoryAccess } from "../permissions";
import { expireDueAnnouncements, loadAnnouncement } from "./lifecycle";
import { recipientsOf } from "./recipient-rows";
import { announcementColumns, presentAnnouncement, toAnnouncementRow } from "./present";
import type { Announcement, AnnouncementListQuery, RecipientsQuery, RecipientsView } from "./schemas";
import { loadScopeAccess, requireSender, type AnnouncementScopeRef, type ScopedKind } from "./scope-access";
import { keysetCursor } from "../../platform/validation/keyset-cursor";

/** Active and showing: started, not expired. */
const current = (alias: string, nowIso: string) => {
  const a = sql.raw(alias);
  return sql`${a}.starts_at <= ${nowIso}::timestamptz and (${a}.expires_at is null or ${a}.expires_at > ${nowIso}::timestamptz)`;
};

const severityRank = (alias: string) => sql.raw(`case ${alias}.doc->>'severity' when 'critical' then 0 when 'warning' then 1 else 2 end`);

// Newest first by id alone (ids sort by creation), so an id places a cursor; it is still wrapped, so that garbage is told apart.
const announcementPosition = keysetCursor({ list: "announcements", parts: ["id"] });

/** A page of the announcements `where` picks, newest first: the system list, a scope's history and the managed list. */
export async function pageOfAnnouncements(options: { deps: Deps; where: SQL; query: AnnouncementListQuery; includeTargets: boolean }) {
  const { deps, where, query, includeTargets } = options;
  const status = query.status ? sql`and a.status = ${query.status}` : sql``;
  const [afterId] = query.cursor ? announcementPosition.decode(query.cursor) : [];
  const after = afterId ? sql`and a.id < ${afterId}` : sql``;
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())} from announcements a
     where ${where} ${status} ${after}
     order by a.id desc
     limit ${query.limit + 1}`);
  const items = rows.slice(0, query.limit).map((record) => presentAnnouncement({ row: toAnnouncementRow(record), includeTargets }));
  return { items, nextCursor: rows.length > query.limit ? announcementPosition.encode(items.at(-1)!.id) : null };
}

/** Server admins: every system announcement, newest first. Expiry is evaluated first. */
export async function listSystemAnnouncements(options: { deps: Deps; actor: UserActor; query: AnnouncementListQuery }) {
  const { deps, actor, query } = options;
  await requireSender({ db: deps.db, actor, ref: { scope: "system", scopeId: null } });
  await expireDueAnnouncements({ deps });
  return pageOfAnnouncements({ deps, where: sql`a.scope = 'system'`, query, includeTargets: true });
}

/** Anyone who can see the observatory, organization or project: its announcements showing now. */
export async function listScopeActiveAnnouncements(options: { deps: Deps; actor: UserActor; ref: AnnouncementScopeRef & { scope: ScopedKind } }) {
  const { deps, actor, ref } = options;
  await loadScopeAccess({ db: deps.db, actor, ref });
  const now = deps.now();
  await expireDueAnnouncements({ deps });
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())}, r.acknowledged_at as "myAcknowledgedAt", r.id is not null as "isRecipient"
      from announcements a
      left join announcement_recipients r on r.id = a.id || ':' || ${actor.id}
     where a.scope = ${ref.scope} and a.scope_id = ${ref.scopeId} and a.status in ('active', 'acknowledged') and ${current("a", now.toISOString())}
     order by ${severityRank("a")}, a.id desc
     limit 200`);
  return {
    items: rows.map((record) =>
      presentAnnouncement({
        row: toAnnouncementRow(record),
        includeTargets: false,
        acknowledgedAt: record.isRecipient ? ((record.myAcknowledgedAt as string | null) ?? null) : undefined,
      }),
    ),
    nextCursor: null,
  };
}

/** An observatory's current announcements, as its plugin receives them (`motd`) when it connects. */
export async function activeObservatoryAnnouncements(options: { deps: Deps; observatoryId: string }) {
  const { deps, observatoryId } = options;
  const now = deps.now().toISOString();
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())} from announcements a
     where a.scope = 'observatory' and a.scope_id = ${observatoryId} and a.status in ('active', 'acknowledged') and ${current("a", now)}
     order by ${severityRank("a")}, a.id desc
     limit 50`);
  return rows.map((record) => presentAnnouncement({ row: toAnnouncementRow(record), includeTargets: false }));
}

/** Senders: every announcement of the scope, past included. */
export async function listScopeAnnouncementHistory(options: {
  deps: Deps;
  actor: UserActor;
  ref: AnnouncementScopeRef & { scope: ScopedKind };
  query: AnnouncementListQuery;
}) {
  const { deps, actor, ref, query } = options;
  await requireSender({ db: deps.db, actor, ref });
  await expireDueAnnouncements({ deps });
  return pageOfAnnouncements({ deps, where: sql`a.scope = ${ref.scope} and a.scope_id = ${ref.scopeId}`, query, includeTargets: true });
}

/**
 * The actor's unacknowledged announcements of every scope that show now, most severe first.
 * Every page load asks, so answers are cached per user for a few seconds and dropped on any
 * announcement change (request-caches); an entry never outlives the first expiry it lists.
 * Read-only: expiry is applied by the time filter, so this hot path never writes.
 */
export async function listPendingAnnouncements(options: { deps: Deps; actor: UserActor }): Promise<{ items: Announcement[] }> {
  return { items: (await pendingEntry(options.deps, options.actor)).items as Announcement[] };
}

/** The same list as `{items}` JSON, serialized once per cache entry rather than once per request. */
export async function listPendingAnnouncementsAsJson(options: { deps: Deps; actor: UserActor }): Promise<string> {
  const entry = await pendingEntry(options.deps, options.actor);
  return (entry.json ??= JSON.stringify({ items: entry.items }));
}

async function pendingEntry(deps: Deps, actor: UserActor): Promise<PendingEntry> {
  const now = deps.now();
  const cached = deps.caches.pending.get(actor.id, now.getTime());
  if (cached) return cached;
  return deps.caches.pending.fill(
    actor.id,
    (): Promise<PendingEntry> => queryPendingAnnouncements(deps, actor, now.toISOString()),
    // Kept no longer than its first announcement lasts.
    (entry) =>
      Math.min(
        now.getTime() + deps.caches.ttlMs,
        ...entry.items.map((item) => ((item as Announcement).expiresAt ? Date.parse((item as Announcement).expiresAt!) : Infinity)),
      ),
  );
}

/**
 * Few announcements are active at once, so this starts from them and looks up the actor's row
 * of each by primary key: no per-user index is needed, and creation writes one index less.
 */
async function queryPendingAnnouncements(deps: Deps, actor: UserActor, nowIso: string) {
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())}
      from announcements a
      join announcement_recipients r on r.id = a.id || ':' || ${actor.id}
     where a.status = 'active' and ${current("a", nowIso)} and r.acknowledged_at is null
     order by ${severityRank("a")}, a.id desc
     limit 200`);
  return { items: rows.map((record) => presentAnnouncement({ row: toAnnouncementRow(record), includeTargets: false, acknowledgedAt: null })) };
}

/**
 * Announcements showing now that the actor received, acknowledged or not: the dashboard's
 * banners. Few announcements are current at once, so this starts from them and looks up the
 * actor's row of each by primary key.
 */
export async function listMyCurrentAnnouncements(options: { deps: Deps; actor: UserActor; scope?: ScopedKind | "system" }) {
  const { deps, actor } = options;
  const nowIso = deps.now().toISOString();
  const scope = options.scope ? sql`and a.scope = ${options.scope}` : sql``;
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select ${sql.raw(announcementColumns())}, r.acknowledged_at as "myAcknowledgedAt"
      from announcements a
      join announcement_recipients r on r.id = a.id || ':' || ${actor.id}
     where a.status in ('active', 'acknowledged') and ${current("a", nowIso)} ${scope}
     order by ${severityRank("a")}, a.id desc
     limit 200`);
  return {
    items: rows.map((record) =>
      presentAnnouncement({ row: toAnnouncementRow(record), includeTargets: false, acknowledgedAt: (record.myAcknowledgedAt as string | null) ?? null }),
    ),
  };
}

/** For observatory cards: how many announcements show now per observatory the actor can see. */
export async function countActiveObservatoryAnnouncements(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  const nowIso = deps.now().toISOString();
  const rows = await deps.db.execute<{ scope_id: string; count: number }>(sql`
    select a.scope_id, count(*)::int as count from announcements a
     where a.scope = 'observatory' and a.status in ('active', 'acknowledged') and ${current("a", nowIso)}
     group by a.scope_id`);
  if (rows.length === 0) return { items: [] };
  const access = await resolveObservatoryAccess({
    db: deps.db,
    userId: actor.id,
    isServerAdmin: actor.isServerAdmin,
    observatoryIds: rows.map((row) => row.scope_id),
  });
  return { items: rows.filter((row) => access.get(row.scope_id)?.can_view).map((row) => ({ observatoryId: row.scope_id, activeAnnouncements: row.count })) };
}

const RECIPIENT_SORT: Record<RecipientsQuery["sort"], string> = {
  name: "lower(u.doc->>'name')",
  email: "u.email_lower",
  acknowledgedAt: "r.acknowledged_at",
};

/** Senders: who received it, who saw it, who was emailed and who acknowledged; with the cancellation. */
export async function getAnnouncementRecipients(options: {
  deps: Deps;
  actor: UserActor;
  ref: AnnouncementScopeRef;
  announcementId: string;
  query: RecipientsQuery;
}): Promise<RecipientsView> {
  const { deps, actor, ref, announcementId, query } = options;
  await requireSender({ db: deps.db, actor, ref });
  await expireDueAnnouncements({ deps, announcementId });
  const announcement = await loadAnnouncement({ db: deps.db, ref, announcementId });
  const offset = decodeOffset(query.cursor);
  const status =
    query.status === "pending" ? sql`and r.acknowledged_at is null` : query.status === "acknowledged" ? sql`and r.acknowledged_at is not null` : sql``;
  const direction = query.order === "desc" ? "desc nulls last" : "asc nulls last";
  const rows = await deps.db.execute<{
    user_id: string;
    email: string;
    name: string;
    acknowledged_at: string | null;
    emailed_at: string | null;
    seen_at: string | null;
    via: string;
    email_state: RecipientsView["items"][number]["emailState"];
    email_last_error: string | null;
  }>(sql`
    select r.user_id, u.doc->>'email' as email, u.doc->>'name' as name, r.acknowledged_at, r.emailed_at, r.seen_at, r.doc->>'via' as via,
           r.email_state, r.email_last_error
      from announcement_recipients r join users u on u.id = r.user_id
     where ${recipientsOf({ announcementId, alias: "r" })} ${status}
     order by ${sql.raw(RECIPIENT_SORT[query.sort])} ${sql.raw(direction)}, r.user_id
     limit ${query.limit + 1} offset ${offset}`);
  const [counts] = await deps.db.execute<{ total: number; acknowledged: number; emailed: number; seen: number; email_failed: number }>(sql`
    select count(*)::int as total, count(acknowledged_at)::int as acknowledged, count(emailed_at)::int as emailed, count(seen_at)::int as seen,
           count(*) filter (where email_state = 'failed')::int as email_failed
      from announcement_recipients where ${recipientsOf({ announcementId })}`);
  const { doc } = announcement;
  const cancelledByName = doc.cancelledBy
    ? ((await deps.db.execute<{ name: string }>(sql`select doc->>'name' as name from users where id = ${doc.cancelledBy}`))[0]?.name ?? null)
    : null;
  const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);
  return {
    items: rows.slice(0, query.limit).map((row) => ({
      userId: row.user_id,
      email: row.email,
      name: row.name,
      status: row.acknowledged_at ? ("acknowledged" as const) : ("pending" as const),
      acknowledgedAt: iso(row.acknowledged_at),
      emailedAt: iso(row.emailed_at),
      seenAt: iso(row.seen_at),
      via: row.via as RecipientsView["items"][number]["via"],
      emailState: row.email_state,
      emailError: row.email_state === "failed" ? row.email_last_error : null,
    })),
    nextCursor: rows.length > query.limit ? encodeOffset(offset + query.limit) : null,
    counts: {
      total: counts!.total,
      acknowledged: counts!.acknowledged,
      pending: counts!.total - counts!.acknowledged,
      emailed: counts!.emailed,
      seen: counts!.seen,
      emailFailed: counts!.email_failed,
    },
    cancellation:
      announcement.status === "cancelled" && doc.cancellationReason && doc.cancelledAt
        ? { reason: doc.cancellationReason, cancelledAt: doc.cancelledAt, cancelledBy: doc.cancelledBy, cancelledByName }
        : null,
  };
}

const encodeOffset = (offset: number) => Buffer.from(`o:${offset}`).toString("base64url");
function decodeOffset(cursor: string | undefined): number {
  if (!cursor) return 0;
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match)
    throw new AppError("VALIDATION_FAILED", "The cursor is not valid", {
      errors: [fieldError({ path: "cursor", predicate: "is not a cursor from this list" })],
    });
  return Number(match[1]);
}
