import { tables, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

export const REALTIME_CHANNEL = "meridian_events";

export interface RealtimeEvent {
  type: string;
  data: unknown;
}

/**
 * The one way to reach WebSocket clients. The event is stored and announced with NOTIFY in
 * the caller's transaction, so it goes out only if the change commits, and every server
 * process (each LISTENs) delivers it to its own connected recipients.
 */
export async function publishEvent(db: Executor, options: { userIds: string[]; event: RealtimeEvent }): Promise<void> {
  if (options.userIds.length === 0) return;
  const [row] = await db
    .insert(tables.realtimeEvents)
    .values({ userIds: [...new Set(options.userIds)], type: options.event.type, data: options.event.data })
    .returning({ id: tables.realtimeEvents.id });
  await db.execute(sql`select pg_notify(${REALTIME_CHANNEL}, ${String(row!.id)})`);
}
