import { tables, type Transaction } from "@meridian/db";
import { getTableName, sql } from "drizzle-orm";
import { CACHE_CHANNEL, type CacheChange, type RequestCaches } from "./request-caches";

/**
 * What a page of observations reads: the observations, who may read them (owners, project and
 * observatory members, organization members through their observatories), the observatories'
 * settings their estimates follow, and the files whose frames their progress counts.
 */
const OBSERVATION_READ_TABLES = [
  tables.observations,
  tables.files,
  tables.observatories,
  tables.observatoryMembers,
  tables.organizationMembers,
  tables.projects,
  tables.projectMembers,
].map((table) => getTableName(table));

const observationsChange: CacheChange = { kind: "observations" };

/**
 * One statement: whether this transaction wrote rows there (PostgreSQL counts them per table), and
 * if so the NOTIFY that tells the other processes on commit.
 */
const announceIfChanged = sql.raw(`
  select changed, case when changed then pg_notify('${CACHE_CHANNEL}', '${JSON.stringify(observationsChange)}') end as notified
    from (select coalesce(sum(pg_stat_get_xact_tuples_inserted(t) + pg_stat_get_xact_tuples_updated(t) + pg_stat_get_xact_tuples_deleted(t)), 0) > 0
                 as changed
            from unnest('{${OBSERVATION_READ_TABLES.join(",")}}'::regclass[]) t) counted`);

/**
 * Called by inTransaction before it commits. PostgreSQL counts the rows this transaction wrote in
 * each table, so every writer is caught (collections, raw SQL, cascades) without each having to
 * remember to say so; a write there makes every cached observation page stale, here at once (and
 * again after the commit) and in the other processes by the NOTIFY, in one round trip.
 */
export async function announceObservationReadChanges(t: { tx: Transaction; caches: RequestCaches; cacheChanges: CacheChange[] }): Promise<void> {
  const [row] = await t.tx.execute<{ changed: boolean }>(announceIfChanged);
  if (!row?.changed) return;
  t.caches.apply(observationsChange);
  t.cacheChanges.push(observationsChange);
}
