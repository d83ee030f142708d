import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../../platform/system/delete-in-batches";
import { recipientsOf } from "./recipient-rows";

/** Announcements one pass takes up, so a backlog (the first run on an old server) is worked through in bounded reads. */
const ANNOUNCEMENTS_PER_PASS = 100;

/**
 * Removes announcements that ended more than `keepDays` ago, with their recipient rows: cancelled
 * then, or past their expiry then, whatever their status (an acknowledged one with an expiry stops
 * showing at it). Kept: one without an expiry that was never cancelled (it still shows), one that
 * has not started by the horizon, and one whose emails are still being sent.
 *
 * The recipient rows go first, in the retention jobs' batches (`deleteInBatches`) over the
 * primary-key range of each announcement (they have no other index), and its row last, so a pass
 * killed at any point leaves an ended announcement that the next pass finishes, never recipient
 * rows that nothing names.
 */
export async function pruneEndedAnnouncements(options: { db: Executor; now: Date; keepDays: number }): Promise<number> {
  const { db } = options;
  const before = new Date(options.now.getTime() - options.keepDays * 86_400_000).toISOString();
  const ended = sql`not a.email_pending and a.starts_at < ${before}::timestamptz
    and ((a.expires_at is not null and a.expires_at < ${before}::timestamptz)
      or (a.status = 'cancelled' and (a.doc->>'cancelledAt')::timestamptz < ${before}::timestamptz))`;
  let removed = 0;
  for (;;) {
    const batch = await db.execute<{ id: string }>(sql`select a.id from announcements a where ${ended} order by a.id limit ${ANNOUNCEMENTS_PER_PASS}`);
    for (const { id } of batch) {
      await deleteInBatches({ db, table: "announcement_recipients", where: recipientsOf({ announcementId: id }) });
      removed += (await db.execute(sql`delete from announcements a where a.id = ${id} and ${ended} returning a.id`)).length;
    }
    if (batch.length < ANNOUNCEMENTS_PER_PASS) return removed;
  }
}
