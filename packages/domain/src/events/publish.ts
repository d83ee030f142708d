import { tables, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

export const REALTIME_CHANNEL = "meridian_events";

export interface RealtimeEvent {
  type: string;
  data: unknown;
}

/**
 * The one way to reach WebSocket clients. The event is stored and announced with NOTIFY in
 * the actor's transaction, so it goes out only if the change commits, and every server
 * process (each LISTENs) delivers it to its own connected recipients.
 */
export async function publishEvent(db: Executor, options: { userIds: string[]; event: RealtimeEvent }): Promise<void> {
  if (options.userIds.length === 0) return;
  await insertAndNotify(db, { userIds: [...new Set(options.userIds)], type: options.event.type, data: options.event.data, announcementId: null });
}

/**
 * For audiences too large to list (an announcement to every user): the event names the
 * announcement and each server process looks up which of its connected users receive it.
 */
export async function publishToAnnouncementRecipients(db: Executor, options: { announcementId: string; event: RealtimeEvent }): Promise<void> {
  await insertAndNotify(db, { userIds: [], type: options.event.type, data: options.event.data, announcementId: options.announcementId });
}

async function insertAndNotify(db: Executor, values: typeof tables.realtimeEvents.$inferInsert) {
  const [row] = await db
    .insert(tables.realtimeEvents)
    .values(values)
    .returning({ id: tables.realtimeEvents.id });
  await db.execute(sql`select pg_notify(${REALTIME_CHANNEL}, ${String(row!.id)})`);
}
