import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../../platform/system/delete-in-batches";

/**
 * Removes the password reset and email change links whose hour has passed, used or not: they open nothing any more,
 * yet each keeps a token's hash and (for an email change) an address its owner never confirmed. Run by an hourly job.
 */
export async function pruneExpiredLinks(options: { db: Executor; now: Date }): Promise<{ passwordResets: number; emailChanges: number }> {
  const { db } = options;
  const expired = sql`(doc->>'expiresAt')::timestamptz <= ${options.now.toISOString()}::timestamptz`;
  const passwordResets = await deleteInBatches({ db, table: "password_resets", where: expired });
  const emailChanges = await deleteInBatches({ db, table: "email_changes", where: expired });
  return { passwordResets, emailChanges };
}
