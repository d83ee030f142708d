import type { Executor } from "@meridian/db";
import { sql, type SQL } from "drizzle-orm";

/** Rows one statement of a prune removes, so it never holds many row locks for long beside the writers of the table. */
const BATCH = 5_000;

/** Deletes every row of `table` where `where` holds, a batch a statement, and says how many went (the retention jobs' prunes). */
export async function deleteInBatches(options: { db: Executor; table: string; where: SQL }): Promise<number> {
  const { db } = options;
  const table = sql.identifier(options.table);
  let removed = 0;
  for (;;) {
    const rows = await db.execute(sql`delete from ${table} where id in (select id from ${table} where ${options.where} limit ${BATCH}) returning id`);
    removed += rows.length;
    if (rows.length < BATCH) return removed;
  }
}
