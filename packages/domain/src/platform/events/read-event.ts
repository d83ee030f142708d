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
  /** Instead of `userIds`: every user connected to each process (absent from a notice sent before it existed). */
  everyUser?: boolean;
}

/** NOTIFY payloads are at most 8,000 bytes; room is left for the id before the event. */
const INLINE_NOTICE_BYTES = 7_900;

/**
 * What a NOTIFY on REALTIME_CHANNEL carries after the event's id: the event itself when it fits
 * (the notice reads `<id> <json>`), so that no process has to read it back; null for a larger
 * one, whose notice is its id alone and which is read by that id.
 */
export function realtimeNoticeBody(values: {
  type: string;
  data: unknown;
  userIds?: string[];
  observatoryIds?: string[];
  announcementId?: string | null;
  everyUser?: boolean;
}): string | null {
  const event: StoredRealtimeEvent = {
    type: values.type,
    data: values.data,
    userIds: values.userIds ?? [],
    observatoryIds: values.observatoryIds ?? [],
    announcementId: values.announcementId ?? null,
    // Only where it is so: every other notice stays as it was.
    ...(values.everyUser ? { everyUser: true } : {}),
  };
  const json = JSON.stringify(event);
  return Buffer.byteLength(json) <= INLINE_NOTICE_BYTES ? json : null;
}

/** A notice's id, and its event when the notice carries it; undefined for a payload that is neither. */
export function readRealtimeNotice(payload: string): { id: number; event?: StoredRealtimeEvent } | undefined {
  const space = payload.indexOf(" ");
  const id = Number(space === -1 ? payload : payload.slice(0, space));
  if (!Number.isInteger(id)) return undefined;
  if (space === -1) return { id };
  try {
    return { id, event: JSON.parse(payload.slice(space + 1)) as StoredRealtimeEvent };
  } catch {
    // Not ours (anyone may NOTIFY on the channel): dropped here rather than thrown out of the LISTEN callback.
    return undefined;
  }
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
      everyUser: event.everyUser,
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
