import { tables, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { invalidateCaches, type RequestCaches } from "../../platform/cache/request-caches";
import type { InTransaction } from "../../platform/transaction";

const MAINTENANCE_ID = "restore";

export const maintenanceStatusSchema = z
  .object({
    active: z.boolean(),
    reason: z.string().nullable(),
    since: z.string().nullable(),
    jobId: z.string().nullable().describe("The restore job holding it (cancel it at POST /api/v1/admin/jobs/{id}/cancel if it will not finish)"),
  })
  .meta({ id: "MaintenanceStatus" });
export type MaintenanceStatus = z.infer<typeof maintenanceStatusSchema>;

/**
 * Whether a restore is replacing the data now (every write then answers 503 MAINTENANCE). One primary-key read.
 * With the process's `caches`, an active maintenance found makes its writes ask again instead of assuming none.
 */
export async function readMaintenance(options: { db: Executor; caches?: RequestCaches }): Promise<MaintenanceStatus> {
  const { db, caches } = options;
  const [row] = await db.select().from(tables.maintenance).limit(1);
  if (row) caches?.apply({ kind: "maintenance" });
  return row
    ? { active: true, reason: row.reason, since: row.since.toISOString(), jobId: row.jobId }
    : { active: false, reason: null, since: null, jobId: null };
}

/**
 * Refuses a write with 503 MAINTENANCE (Retry-After 30 s) while a restore runs: whatever it wrote
 * would be thrown away by the swap. `retry` tells the caller what to do meanwhile. With `caches`,
 * "no maintenance" read in the last second is believed without a round trip (RequestCaches); a
 * beginning in another process arrives by NOTIFY, and a write let through in that moment is thrown
 * away by the swap like one committed just before it began.
 */
export async function refuseWritesDuringMaintenance(options: {
  deps: Pick<Deps, "db" | "caches" | "now">;
  retry: string;
  /** Whether "none" read in the last second may be believed (the hot write paths). */
  believeRecent: boolean;
}) {
  const { deps, believeRecent } = options;
  if (believeRecent && deps.caches.knowsNoMaintenance(deps.now().getTime())) return;
  const generation = deps.caches.maintenanceReadStarts();
  const maintenance = await readMaintenance({ db: deps.db, caches: deps.caches });
  if (maintenance.active) throw new AppError("MAINTENANCE", `${maintenance.reason ?? "Maintenance"}: ${options.retry}`, { retryAfterSeconds: 30 });
  deps.caches.rememberNoMaintenance(generation, deps.now().getTime());
}

/**
 * Begins maintenance in the caller's transaction: a restore begins it in the transaction that finds
 * its job still live, so a cancel either comes first (nothing begins) or finds the maintenance to end.
 */
export async function beginMaintenanceIn(options: { t: InTransaction; reason: string; jobId: string }) {
  const { t } = options;
  await t.tx
    .insert(tables.maintenance)
    .values({ id: MAINTENANCE_ID, reason: options.reason, jobId: options.jobId, since: t.now() })
    .onConflictDoUpdate({ target: tables.maintenance.id, set: { reason: options.reason, jobId: options.jobId } });
  // Every process stops assuming that there is none.
  await invalidateCaches({ t, change: { kind: "maintenance" } });
}

/** Ends maintenance; with a `jobId`, only the maintenance that job began (a later restore's stays). */
export async function endMaintenance(options: { db: Executor; jobId?: string }) {
  const { db, jobId } = options;
  if (jobId === undefined) await db.execute(sql`delete from maintenance where id = ${MAINTENANCE_ID}`);
  else await db.execute(sql`delete from maintenance where id = ${MAINTENANCE_ID} and job_id = ${jobId}`);
}
