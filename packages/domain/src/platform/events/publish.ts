import { tables } from "@meridian/db";
import type { RealtimeEvent } from "@meridian/rules/events";
import type { ServerToPluginEvent } from "@meridian/rules/observatory-protocol";
import { sql } from "drizzle-orm";
import { realtimeNoticeBody } from "./read-event";
import type { InTransaction } from "../transaction";

export const REALTIME_CHANNEL = "meridian_events";

/**
 * The event map (names and payloads) is `@meridian/rules`' (`RealtimeEvent`, `ServerToPluginEvent`), so this
 * transport names no feature: an observation or an announcement in a payload is checked against the protocol's
 * own shapes (`AssignedObservation`, `MotdAnnouncement`), which the domain's extend.
 */
export type { RealtimeEvent };
export type ObservatoryEvent = ServerToPluginEvent;

/**
 * The one way to reach WebSocket clients. The event is stored and announced with NOTIFY in
 * the caller's transaction, so it goes out only if the change commits, and every server
 * process (each LISTENs) delivers it to its own sockets of the users and observatories named.
 * Domain code sends the typed events through `publishUserEvent` and `publishObservatoryEvent`;
 * this is the transport under them (the hub's own notices, such as a connection's claim, go
 * straight through it).
 */
export async function publishEvent(options: {
  t: Pick<InTransaction, "tx">;
  userIds?: string[];
  observatoryIds?: string[];
  event: { type: string; data: unknown };
}): Promise<void> {
  const userIds = [...new Set(options.userIds)];
  const observatoryIds = [...new Set(options.observatoryIds)];
  if (userIds.length === 0 && observatoryIds.length === 0) return;
  await insertAndNotify(options.t, { userIds, observatoryIds, type: options.event.type, data: options.event.data, announcementId: null });
}

/** An event of the shared schemas to these users, in the caller's transaction. */
export function publishUserEvent(options: { t: Pick<InTransaction, "tx">; userIds: string[]; event: RealtimeEvent }): Promise<void> {
  return publishEvent(options);
}

/**
 * A message of the observatory protocol to these observatories' plugins, routed to their
 * connections on whichever process holds them. Checked by the compiler only: an observation is
 * sent as stored, and one stored before a field existed must still reach its observatory.
 */
export function publishObservatoryEvent(options: { t: Pick<InTransaction, "tx">; observatoryIds: string[]; event: ObservatoryEvent }): Promise<void> {
  return publishEvent(options);
}

/**
 * For audiences too large to list (an announcement to every user): the event names the
 * announcement and each server process looks up which of its connected users receive it.
 */
export async function publishToAnnouncementRecipients(options: { t: Pick<InTransaction, "tx">; announcementId: string; event: RealtimeEvent }): Promise<void> {
  await insertAndNotify(options.t, { userIds: [], type: options.event.type, data: options.event.data, announcementId: options.announcementId });
}

/**
 * For an event every user may have (it says only when something changed, never what): one row however many users,
 * and each server process sends it to the users connected to it. What each may see, they read again themselves.
 */
export async function publishToEveryUser(options: { t: Pick<InTransaction, "tx">; event: RealtimeEvent }): Promise<void> {
  await insertAndNotify(options.t, { userIds: [], everyUser: true, type: options.event.type, data: options.event.data, announcementId: null });
}

/** The event stored and its NOTIFY sent in one statement: one round trip, whatever the writer's transaction holds. */
async function insertAndNotify(t: Pick<InTransaction, "tx">, values: typeof tables.realtimeEvents.$inferInsert) {
  const insert = t.tx.insert(tables.realtimeEvents).values(values).returning({ id: tables.realtimeEvents.id });
  const body = realtimeNoticeBody(values);
  await t.tx.execute(sql`
    with inserted as (${insert.getSQL()})
    select pg_notify(${REALTIME_CHANNEL}, ${body === null ? sql`inserted.id::text` : sql`inserted.id::text || ' ' || ${body}::text`}) from inserted`);
}
