import { tables, type Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Deps } from "../deps";
import { AppError } from "../errors";

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

/** Whether a restore is replacing the data now (every write then answers 503 MAINTENANCE). One primary-key read. */
export async function readMaintenance(db: Executor): Promise<MaintenanceStatus> {
  const [row] = await db.select().from(tables.maintenance).limit(1);
  return row
    ? { active: true, reason: row.reason, since: row.since.toISOString(), jobId: row.jobId }
    : { active: false, reason: null, since: null, jobId: null };
}

/**
 * Refuses a write with 503 MAINTENANCE (Retry-After 30 s) while a restore runs: whatever it wrote
 * would be thrown away by the swap. `retry` tells the caller what to do meanwhile.
 */
export async function refuseWritesDuringMaintenance(options: { db: Executor; retry: string }) {
  const maintenance = await readMaintenance(options.db);
  if (maintenance.active) throw new AppError("MAINTENANCE", `${maintenance.reason ?? "Maintenance"}: ${options.retry}`, { headers: { "retry-after": "30" } });
}

export async function beginMaintenance(options: { deps: Deps; reason: string; jobId: string }) {
  const { deps } = options;
  await deps.db
    .insert(tables.maintenance)
    .values({ id: MAINTENANCE_ID, reason: options.reason, jobId: options.jobId, since: deps.now() })
    .onConflictDoUpdate({ target: tables.maintenance.id, set: { reason: options.reason, jobId: options.jobId } });
}

/** Ends maintenance; with a `jobId`, only the maintenance that job began (a later restore's stays). */
export async function endMaintenance(options: { db: Executor; jobId?: string }) {
  const { db, jobId } = options;
  if (jobId === undefined) await db.execute(sql`delete from maintenance where id = ${MAINTENANCE_ID}`);
  else await db.execute(sql`delete from maintenance where id = ${MAINTENANCE_ID} and job_id = ${jobId}`);
}
