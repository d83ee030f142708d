import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";

/** Rows removed by one statement, so the prune never holds many row locks for long beside the senders. */
const PRUNE_BATCH = 5_000;

/**
 * Removes emails sent or given up more than `keepDays` ago: every sign-up, invitation and
 * announcement leaves a row with its whole body, and without this the outbox would grow for as
 * long as the server runs. Pending mail is never touched, whatever its age.
 */
export async function pruneEmailOutbox(options: { db: Executor; now: Date; keepDays: number }): Promise<number> {
  const before = new Date(options.now.getTime() - options.keepDays * 86_400_000);
  let removed = 0;
  for (;;) {
    const rows = await options.db.execute(sql`
      delete from email_outbox where id in (
        select id from email_outbox where status in ('sent', 'failed') and updated_at < ${before.toISOString()}::timestamptz limit ${PRUNE_BATCH})
      returning id`);
    removed += rows.length;
    if (rows.length < PRUNE_BATCH) return removed;
  }
}
