import { sql } from "drizzle-orm";
import type { InTransaction } from "../transaction";

/** The restore's job kind: it replaces the data wholesale. */
export const RESTORE_JOB_KIND = "backup_restore";
/** The observation cleanup's job kind: it deletes every observation existing when it starts. */
export const OBSERVATION_CLEANUP_JOB_KIND = "observation_cleanup";

/**
 * A restore and an observation cleanup refuse each other while queued or running (one would undo
 * the other, or delete what it brought back), and a restore and a backup's archive likewise (the
 * swap would meet the backup's readers). Each start takes this lock in its transaction before it
 * looks for the other, so two checks cannot both pass at once.
 */
export async function lockDestructiveJobStarts(options: { t: Pick<InTransaction, "tx"> }) {
  await options.t.tx.execute(sql`select pg_advisory_xact_lock(hashtext('meridian:destructive-job-start'))`);
}
