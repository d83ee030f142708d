import type { Executor } from "@meridian/db";
import { sql } from "drizzle-orm";
import { deleteInBatches } from "../../platform/system/delete-in-batches";

/**
 * Keeps the newest `keepPerObservatory` history entries of each observatory. Entries follow what
 * a plugin reports (connections, safety, weather holds), so a flapping sensor or a plugin that
 * reconnects in a loop writes them without end; the oldest go first, as they would scroll away.
 */
export async function pruneObservatoryHistory(options: { db: Executor; keepPerObservatory: number }): Promise<number> {
  const { db, keepPerObservatory: keep } = options;
  const crowded = await db.execute<{ observatory_id: string }>(sql`
    select observatory_id from observatory_history group by observatory_id having count(*) > ${keep}`);
  let removed = 0;
  for (const { observatory_id: observatoryId } of crowded) {
    // The oldest entry kept; everything before it goes. Entries written meanwhile are newer, so the newest `keep` stay.
    const [oldestKept] = await db.execute<{ created_at: string; id: string }>(sql`
      select created_at::text, id from observatory_history where observatory_id = ${observatoryId}
       order by created_at desc, id desc offset ${keep - 1} limit 1`);
    if (!oldestKept) continue;
    removed += await deleteInBatches({
      db,
      table: "observatory_history",
      where: sql`observatory_id = ${observatoryId} and (created_at, id) < (${oldestKept.created_at}::timestamptz, ${oldestKept.id})`,
    });
  }
  return removed;
}
