import { sql } from "drizzle-orm";
import type { InTransaction } from "../transaction";

/**
 * A restore and an observation cleanup refuse each other while queued or running (one would undo
 * the other, or delete what it brought back), and a restore and a backup's archive likewise (the
 * swap would meet the backup's readers). Each start takes this lock in its transaction before it
 * looks for the other, so two checks cannot both pass at once.
 */
export async function lockDestructiveJobStarts(options: { t: Pick<InTransaction, "tx"> }) {
  await options.t.tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:destructive-job-start'))`);
}
