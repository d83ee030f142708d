import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../system/delete-in-batches";

/**
 * Removes emails sent or given up more than `keepDays` ago: every sign-up, invitation and
 * announcement leaves a row with its whole body, and without this the outbox would grow for as
 * long as the server runs. Pending mail is never touched, whatever its age.
 */
export function pruneEmailOutbox(options: { db: Executor; now: Date; keepDays: number }): Promise<number> {
  const before = new Date(options.now.getTime() - options.keepDays * 86_400_000);
  return deleteInBatches({
    db: options.db,
    table: "email_outbox",
    where: sql`status in ('sent', 'failed') and updated_at < ${before.toISOString()}::timestamptz`,
  });
}
