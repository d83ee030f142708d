import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../../platform/system/delete-in-batches";

/**
 * Removes audit entries written more than `keepDays` ago. Every membership, permission, project and
 * settings change writes one, so without a horizon the log grows for as long as people work; the
 * oldest go first, as a rotated log's would. Nothing else points at an entry, so none is held back.
 */
export function pruneAuditLog(options: { db: Executor; now: Date; keepDays: number }): Promise<number> {
  const before = new Date(options.now.getTime() - options.keepDays * 86_400_000);
  return deleteInBatches({ db: options.db, table: "audit_log", where: sql`created_at < ${before.toISOString()}::timestamptz` });
}
