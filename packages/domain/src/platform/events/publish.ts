import { tables } from "@meridian/db";
import type { RealtimeEvents } from "@meridian/rules/events";
import type { ServerToPluginMessage } from "@meridian/rules/observatory-protocol";
import { sql } from "drizzle-orm";
import type { Announcement } from "../../features/announcements/schemas";
import type { Observation } from "../../features/observations/schemas";
import { realtimeNoticeBody } from "./read-event";
import type { InTransaction } from "../transaction";

export const REALTIME_CHANNEL = "meridian_events";

/** What the server pushes to users over `/ws`: one of the shared event schemas (`@meridian/rules/events`). */
export type RealtimeEvent = {
  [Type in keyof RealtimeEvents<Announcement>]: { type: Type; data: RealtimeEvents<Announcement>[Type] };
}[keyof RealtimeEvents<Announcement>];

/**
 * What the server sends an observatory's plugin over `/ws/observatory` (`@meridian/rules/observatory-protocol`),
 * with the API's own observation and announcement in `assign` and `motd`.
 */
export type ObservatoryMessage = ServerToPluginMessage<Observation, Announcement>;

/** A message the server pushes to observatories unasked (not a reply): its type, and the rest of it as `data`. */
export type ObservatoryEvent = {
  [Type in Exclude<ObservatoryMessage["type"], "ack" | "error">]: { type: Type; data: Omit<Extract<ObservatoryMessage, { type: Type }>, "type"> };
}[Exclude<ObservatoryMessage["type"], "ack" | "error">];

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

/** The event stored and its NOTIFY sent in one statement: one round trip, whatever the writer's transaction holds. */
async function insertAndNotify(t: Pick<InTransaction, "tx">, values: typeof tables.realtimeEvents.$inferInsert) {
  const insert = t.tx.insert(tables.realtimeEvents).values(values).returning({ id: tables.realtimeEvents.id });
  const body = realtimeNoticeBody(values);
  await t.tx.execute(sql`
    with inserted as (${insert.getSQL()})
    select pg_notify(${REALTIME_CHANNEL}, ${body === null ? sql`inserted.id::text` : sql`inserted.id::text || ' ' || ${body}::text`}) from inserted`);
}
