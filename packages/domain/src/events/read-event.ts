import { tables } from "@meridian/db";
import { inArray } from "drizzle-orm";
import type { Deps } from "../deps";

export interface StoredRealtimeEvent {
  type: string;
  data: unknown;
  userIds: string[];
  observatoryIds: string[];
  /** Set instead of `userIds` for an announcement's recipients, resolved by each process among its connected users. */
  announcementId: string | null;
}

/**
 * Published events by the ids their NOTIFYs carried, in one query however many: a process that
 * fell behind reads what waits for it at once instead of an event at a time. A pruned one is absent.
 */
export async function loadRealtimeEvents(options: { deps: Deps; eventIds: number[] }): Promise<Map<number, StoredRealtimeEvent>> {
  const { deps, eventIds } = options;
  const events = new Map<number, StoredRealtimeEvent>();
  if (eventIds.length === 0) return events;
  const rows = await deps.db.select().from(tables.realtimeEvents).where(inArray(tables.realtimeEvents.id, eventIds));
  for (const event of rows)
    events.set(event.id, {
      type: event.type,
      data: event.data,
      userIds: event.userIds,
      observatoryIds: event.observatoryIds,
      announcementId: event.announcementId,
    });
  return events;
}

/** Which of these (connected) users are recipients of the announcement: a primary-key lookup per user, however large the audience. */
export async function recipientsAmong(options: { deps: Deps; announcementId: string; userIds: string[] }): Promise<string[]> {
  const { deps, announcementId, userIds } = options;
  if (userIds.length === 0) return [];
  const rows = await deps.db
    .select({ userId: tables.announcementRecipients.userId })
    .from(tables.announcementRecipients)
    .where(
      inArray(
        tables.announcementRecipients.id,
        userIds.map((userId) => `${announcementId}:${userId}`),
      ),
    );
  return rows.map((row) => row.userId);
}
