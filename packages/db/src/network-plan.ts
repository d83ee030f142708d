import { sql } from "drizzle-orm";
import type { Executor } from "./client";
import type { NetworkPlanDoc } from "./documents";

/** The network plan in force (`network_plans`, row `current`), or null before the first is made. */
export async function readNetworkPlan(db: Executor): Promise<NetworkPlanDoc | null> {
  const [row] = await db.execute<{ doc: NetworkPlanDoc }>(sql`select doc from network_plans where id = 'current'`);
  return row?.doc ?? null;
}

/**
 * The observatory of the observation's next run in the plan in force (one not over at `now`), or null: picked out by
 * the database, so a forecast does not fetch and parse the whole plan for one slot.
 */
export async function plannedObservatoryOf(options: { db: Executor; observationId: string; now: Date }): Promise<string | null> {
  const { db, observationId, now } = options;
  const [row] = await db.execute<{ observatory_id: string }>(sql`
    select slot->>'observatoryId' as observatory_id from network_plans p, jsonb_array_elements(p.doc->'slots') slot
     where p.id = 'current' and slot->>'observationId' = ${observationId} and (slot->>'end')::timestamptz > ${now.toISOString()}::timestamptz
     order by (slot->>'start')::timestamptz limit 1`);
  return row?.observatory_id ?? null;
}
