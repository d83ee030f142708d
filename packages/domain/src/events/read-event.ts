import { tables } from "@meridian/db";
import { eq, inArray } from "drizzle-orm";
import type { Deps } from "../deps";

export interface StoredRealtimeEvent {
  type: string;
  data: unknown;
  userIds: string[];
  observatoryIds: string[];
  /** Set instead of `userIds` for an announcement's recipients, resolved by each process among its connected users. */
  announcementId: string | null;
}

/** A published event by the id its NOTIFY carried; undefined once pruned. */
export async function loadRealtimeEvent(options: { deps: Deps; eventId: number }): Promise<StoredRealtimeEvent | undefined> {
  const { deps, eventId } = options;
  const [event] = await deps.db.select().from(tables.realtimeEvents).where(eq(tables.realtimeEvents.id, eventId)).limit(1);
  if (!event) return undefined;
  return { type: event.type, data: event.data, userIds: event.userIds, observatoryIds: event.observatoryIds, announcementId: event.announcementId };
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
