import { sql } from "drizzle-orm";
import type { Executor } from "./client";
import type { NetworkPlanDoc } from "./documents";

/** The network plan in force (`network_plans`, row `current`), or null before the first is made. */
export async function readNetworkPlan(db: Executor): Promise<NetworkPlanDoc | null> {
  const [row] = await db.execute<{ doc: NetworkPlanDoc }>(sql`select doc from network_plans where id = 'current'`);
  return row?.doc ?? null;
}

/** One planned run of the plan in force: where and when. */
interface PlannedRun {
  observatoryId: string;
  start: Date;
  end: Date;
}

/**
 * The observation's next run in the plan in force (one not over at `now`), or null: picked out by the database, so a
 * forecast does not fetch and parse the whole plan for one slot.
 */
export async function plannedRunOf(options: { db: Executor; observationId: string; now: Date }): Promise<PlannedRun | null> {
  const { db, observationId, now } = options;
  const [row] = await db.execute<{ observatory_id: string; start: string; end: string }>(sql`
    select slot->>'observatoryId' as observatory_id, slot->>'start' as start, slot->>'end' as end
      from network_plans p, jsonb_array_elements(p.doc->'slots') slot
     where p.id = 'current' and slot->>'observationId' = ${observationId} and (slot->>'end')::timestamptz > ${now.toISOString()}::timestamptz
     order by (slot->>'start')::timestamptz limit 1`);
  return row ? { observatoryId: row.observatory_id, start: new Date(row.start), end: new Date(row.end) } : null;
}
