import { sql } from "drizzle-orm";
import type { Executor } from "./client";
import type { NetworkPlanDoc } from "./documents";

/** The network plan in force (`network_plans`, row `current`), or null before the first is made. */
export async function readNetworkPlan(db: Executor): Promise<NetworkPlanDoc | null> {
  const [row] = await db.execute<{ doc: NetworkPlanDoc }>(sql`select doc from network_plans where id = 'current'`);
  return row?.doc ?? null;
}
