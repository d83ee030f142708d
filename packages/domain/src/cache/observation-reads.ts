import { tables, type Transaction } from "@meridian/db";
import { getTableName, sql } from "drizzle-orm";
import type { CacheChange, RequestCaches } from "./request-caches";
import { invalidateCaches } from "./request-caches";

/**
 * What a page of observations reads: the observations, who may read them (owners, project and
 * observatory members, organization members through their observatories) and the observatories'
 * settings their estimates follow.
 */
const OBSERVATION_READ_TABLES = [
  tables.observations,
  tables.observatories,
  tables.observatoryMembers,
  tables.organizationMembers,
  tables.projects,
  tables.projectMembers,
].map((table) => getTableName(table));

const changedRowsQuery = sql.raw(`
  select coalesce(sum(pg_stat_get_xact_tuples_inserted(t) + pg_stat_get_xact_tuples_updated(t) + pg_stat_get_xact_tuples_deleted(t)), 0) > 0
         as changed
    from unnest('{${OBSERVATION_READ_TABLES.join(",")}}'::regclass[]) t`);

/**
 * Called by inTransaction before it commits. PostgreSQL counts the rows this transaction wrote in
 * each table, so every writer is caught (collections, raw SQL, cascades) without each having to
 * remember to say so; a write there makes every cached observation page stale, here at once and
 * in the other processes by NOTIFY on commit.
 */
export async function announceObservationReadChanges(t: { tx: Transaction; caches: RequestCaches; cacheChanges: CacheChange[] }): Promise<void> {
  const [row] = await t.tx.execute<{ changed: boolean }>(changedRowsQuery);
  if (row?.changed) await invalidateCaches({ t, change: { kind: "observations" } });
}
