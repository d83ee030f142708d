import { tables, type Transaction } from "@meridian/db";
import type { RealtimeEvents } from "@meridian/rules/events";
import { sql } from "drizzle-orm";
import type { Announcement } from "../announcements/schemas";
import type { InTransaction } from "../transaction";

export const REALTIME_CHANNEL = "meridian_events";

/** What the server pushes to users over `/ws`: one of the shared event schemas (`@meridian/rules/events`). */
export type RealtimeEvent = {
  [Type in keyof RealtimeEvents<Announcement>]: { type: Type; data: RealtimeEvents<Announcement>[Type] };
}[keyof RealtimeEvents<Announcement>];

/** A message for connected observatories (`/ws/observatory`), whose protocol defines its types. */
export interface ObservatoryEvent {
  type: string;
  data: unknown;
}

/**
 * The one way to reach WebSocket clients. The event is stored and announced with NOTIFY in
 * the caller's transaction, so it goes out only if the change commits, and every server
 * process (each LISTENs) delivers it to its own sockets of the users and observatories named.
 * Domain code sends the typed events through `publishUserEvent`; this is the transport under it.
 */
export async function publishEvent(options: { t: Pick<InTransaction, "tx">; userIds: string[]; event: { type: string; data: unknown } }): Promise<void> {
  if (options.userIds.length === 0) return;
  await insertAndNotify(options.t.tx, { userIds: [...new Set(options.userIds)], type: options.event.type, data: options.event.data, announcementId: null });
}

/** An event of the shared schemas to these users, in the caller's transaction. */
export function publishUserEvent(options: { t: Pick<InTransaction, "tx">; userIds: string[]; event: RealtimeEvent }): Promise<void> {
  return publishEvent(options);
}

/** The same for observatories: routed to their connections by observatory id, on whichever process holds them. */
export async function publishObservatoryEvent(options: { t: Pick<InTransaction, "tx">; observatoryIds: string[]; event: ObservatoryEvent }): Promise<void> {
  if (options.observatoryIds.length === 0) return;
  await insertAndNotify(options.t.tx, {
    userIds: [],
    observatoryIds: [...new Set(options.observatoryIds)],
    type: options.event.type,
    data: options.event.data,
    announcementId: null,
  });
}

/**
 * For audiences too large to list (an announcement to every user): the event names the
 * announcement and each server process looks up which of its connected users receive it.
 */
export async function publishToAnnouncementRecipients(options: { t: Pick<InTransaction, "tx">; announcementId: string; event: RealtimeEvent }): Promise<void> {
  await insertAndNotify(options.t.tx, { userIds: [], type: options.event.type, data: options.event.data, announcementId: options.announcementId });
}

async function insertAndNotify(tx: Transaction, values: typeof tables.realtimeEvents.$inferInsert) {
  const [row] = await tx.insert(tables.realtimeEvents).values(values).returning({ id: tables.realtimeEvents.id });
  await tx.execute(sql`select pg_notify(${REALTIME_CHANNEL}, ${String(row!.id)})`);
}
