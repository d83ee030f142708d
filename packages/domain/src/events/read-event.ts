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

/** NOTIFY payloads are at most 8,000 bytes; room is left for the id before the event. */
const INLINE_NOTICE_BYTES = 7_900;

/**
 * What a NOTIFY on REALTIME_CHANNEL carries: the event's id and, when it fits, the event itself
 * (`<id> <json>`), so that no process has to read it back; a larger one is read by its id.
 */
export function realtimeNotice(options: {
  id: number;
  values: { type: string; data: unknown; userIds?: string[]; observatoryIds?: string[]; announcementId?: string | null };
}) {
  const { id, values } = options;
  const event: StoredRealtimeEvent = {
    type: values.type,
    data: values.data,
    userIds: values.userIds ?? [],
    observatoryIds: values.observatoryIds ?? [],
    announcementId: values.announcementId ?? null,
  };
  const json = JSON.stringify(event);
  return Buffer.byteLength(json) <= INLINE_NOTICE_BYTES ? `${id} ${json}` : String(id);
}

/** The event a notice names: carried in it, or read by its id (undefined once pruned, or for a payload that is neither). */
export async function eventOfNotice(options: { deps: Deps; payload: string }): Promise<{ id: number; event: StoredRealtimeEvent | undefined }> {
  const space = options.payload.indexOf(" ");
  const id = Number(space === -1 ? options.payload : options.payload.slice(0, space));
  if (!Number.isInteger(id)) return { id, event: undefined };
  if (space !== -1) return { id, event: JSON.parse(options.payload.slice(space + 1)) as StoredRealtimeEvent };
  return { id, event: await loadRealtimeEvent({ deps: options.deps, eventId: id }) };
}

/** A published event by the id its NOTIFY carried; undefined once pruned. */
async function loadRealtimeEvent(options: { deps: Deps; eventId: number }): Promise<StoredRealtimeEvent | undefined> {
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
