import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { inTransaction } from "../../platform/transaction";
import { trackedKind } from "../../platform/jobs/define-job";

/** Scans removed, with their issues, by one transaction of the prune. */
const PRUNE_BATCH = 20;

/**
 * Keeps the newest `keep` finished integrity scans with their issues, and every scan still queued
 * or running or under a queued or running bulk repair. A scan on a schedule (every minute, if an
 * administrator asks) would otherwise keep every issue it ever found.
 */
export async function pruneIntegrityScans(options: { deps: Deps; keep: number }): Promise<number> {
  const { deps, keep } = options;
  let removed = 0;
  for (;;) {
    const batch = await inTransaction(deps, async (t) => {
      const rows = await t.tx.execute<{ id: string }>(sql`
        select s.id from integrity_scans s
         where s.status not in ('queued', 'running')
           and s.id not in (
             select subject_id from jobs where kind = ${trackedKind("integrity_repair")} and status in ('queued', 'running') and subject_id is not null)
           and s.id not in (select id from integrity_scans where status not in ('queued', 'running') order by created_at desc, id desc limit ${keep})
         order by s.created_at, s.id
         limit ${PRUNE_BATCH}
         for update of s skip locked`);
      const locked = rows.map((row) => row.id);
      if (locked.length === 0) return { locked: 0, removed: 0 };
      // A repair's start holds its scan until its job is recorded (and is passed over above meanwhile): one that committed
      // after the statement above began, but before its lock, is seen by this later statement, and its scan stays.
      const repairing = await t.tx.execute<{ id: string }>(sql`
        select subject_id as id from jobs where kind = ${trackedKind("integrity_repair")} and status in ('queued', 'running') and subject_id in ${locked}`);
      const spared = new Set(repairing.map((row) => row.id));
      const doomed = locked.filter((id) => !spared.has(id));
      if (doomed.length > 0) {
        await t.tx.execute(sql`delete from integrity_issues where scan_id in ${doomed}`);
        await t.tx.execute(sql`delete from integrity_scans where id in ${doomed}`);
      }
      return { locked: locked.length, removed: doomed.length };
    });
    removed += batch.removed;
    if (batch.locked < PRUNE_BATCH) return removed;
  }
}
