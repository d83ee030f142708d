import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { isDatabaseOutOfSpace } from "../../platform/postgres-errors";
import { inTransaction } from "../../platform/transaction";

/** When this process's database first refused a write for want of space (53100 disk_full), by runtime; gone once it has room again. */
const outOfSpaceSince = new WeakMap<Deps["sql"], Date>();

/** Keeps a database's refusal of a write for want of space (any other error is let be), for /api/health to report. */
export function noteDatabaseOutOfSpace(options: { deps: Pick<Deps, "sql" | "now">; error: unknown }) {
  const { deps, error } = options;
  if (isDatabaseOutOfSpace(error) && !outOfSpaceSince.has(deps.sql)) outOfSpaceSince.set(deps.sql, deps.now());
}

/** Thrown to roll the probe's transaction back once it has written. */
class ProbeWritten extends Error {}

/**
 * Whether the database is out of space: only once a write was refused for it (noteDatabaseOutOfSpace),
 * and then asked again of PostgreSQL each time, since the space may have been freed meanwhile. The
 * question is a write that must take new space on the database's disk: a table made and filled
 * with 256 kB in a transaction rolled back (a row in a table that has room would not tell a full
 * disk). Null when there is room; the time of the first refusal otherwise.
 */
export async function databaseOutOfSpace(options: { deps: Deps }): Promise<Date | null> {
  const { deps } = options;
  const since = outOfSpaceSince.get(deps.sql);
  if (!since) return null;
  const table = sql.identifier(`meridian_space_probe_${randomBytes(6).toString("hex")}`);
  try {
    await inTransaction(deps, async (t) => {
      await t.tx.execute(sql`create table ${table} (filler text)`);
      // Rows under 2 kB are stored as they are (no compression): 256 kB of new pages.
      await t.tx.execute(sql`insert into ${table} select repeat(md5(i::text), 32) from generate_series(1, 256) as i`);
      throw new ProbeWritten();
    });
  } catch (error) {
    // Refused again, or no answer: out of space as far as anyone knows.
    if (!(error instanceof ProbeWritten)) return since;
  }
  outOfSpaceSince.delete(deps.sql);
  return null;
}
