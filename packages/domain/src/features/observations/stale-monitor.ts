import { tables, usersCollection, type Executor, type ObservationDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { notifySystemEvent } from "../notifications";
import { readServerSettings } from "../system";
import { findServerAdmins } from "../users";
import { inTransaction } from "../../platform/transaction";

/** Users with can_operate or can_admin on the observatory, by the same sources as every permission (server admins come separately). */
async function operatorsOf(db: Executor, observatoryId: string) {
  const rows = await db.execute<{ user_id: string }>(sql`
    select o.owner_id as user_id from observatories o where o.id = ${observatoryId} and o.owner_kind = 'user'
    union
    select m.member_id from observatory_members m
     where m.observatory_id = ${observatoryId} and m.member_kind = 'user'
       and ((m.doc->'permissions'->>'can_operate')::boolean or (m.doc->'permissions'->>'can_admin')::boolean)
    union
    select org.owner_id from observatory_members m join organizations org on org.id = m.member_id
     where m.observatory_id = ${observatoryId} and m.member_kind = 'organization'`);
  return rows.map((row) => row.user_id);
}

/**
 * The stale-observation monitor (a minute's cron): an observation in_progress longer than
 * `staleInProgressHours` or assigned longer than `staleAssignedHours` is reported once per stay
 * in that status to its observatory's operators and the server admins, and flagged on the
 * observation (`stale` in its detail). A later move clears the flag.
 */
export async function reportStaleObservations(options: { deps: Deps }) {
  const { deps } = options;
  const settings = await readServerSettings(deps.db);
  const now = deps.now();
  const cutoff = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
  const flagged = await inTransaction(deps, async (t) => {
    const rows = await t.tx.execute<{ id: string; doc: ObservationDoc }>(sql`
      update observations set doc = doc || jsonb_build_object('staleReportedAt', ${now.toISOString()}::text), updated_at = now()
       where doc->>'staleReportedAt' is null
         and ((status = 'in_progress' and status_changed_at < ${cutoff(settings.staleInProgressHours)}::timestamptz)
           or (status = 'assigned' and status_changed_at < ${cutoff(settings.staleAssignedHours)}::timestamptz))
       returning id, doc`);
    if (rows.length === 0) return rows;
    const admins = await findServerAdmins(t.tx);
    for (const row of rows) {
      // Assigned or in progress: it has its observatory.
      const operatorIds = row.doc.observatoryId ? await operatorsOf(t.tx, row.doc.observatoryId) : [];
      const operators = operatorIds.length > 0 ? await usersCollection.findMany(t.tx, sql`${tables.users.id} in ${operatorIds}`, undefined, 1000) : [];
      const audience = new Map([...operators, ...admins].map((user) => [user.id, user]));
      const hours = row.doc.status === "in_progress" ? settings.staleInProgressHours : settings.staleAssignedHours;
      await notifySystemEvent({
        t,
        users: [...audience.values()],
        event: {
          kind: "observation_stale",
          subject: `Observation "${row.doc.name}" stuck in ${row.doc.status.replace("_", " ")}`,
          lines: [`The observation "${row.doc.name}" has been ${row.doc.status.replace("_", " ")} since ${row.doc.statusChangedAt}, more than ${hours} hours.`],
          path: `/observations/${row.id}`,
          priority: 1,
        },
      });
    }
    return rows;
  });
  return flagged.map((row) => row.id);
}
