import type { Transaction } from "@meridian/db";
import { announceObservationReadChanges } from "./cache/observation-reads";
import type { CacheChange } from "./cache/request-caches";
import type { Deps } from "./deps";

/**
 * What domain code inside a transaction works with: the transaction and the process's services,
 * but not the pool (`db`, `sql`), so nothing called inside a transaction can write beside it.
 * Functions that run inside one take it as `t` in their options object.
 */
export interface InTransaction extends Omit<Deps, "db" | "sql"> {
  tx: Transaction;
  /** The cache changes this transaction announced (invalidateCaches), applied again once it commits. */
  cacheChanges: CacheChange[];
}

/** The one way into a transaction: `work` gets the transaction context and nothing else of the pool. */
export async function inTransaction<T>(deps: Deps, work: (t: InTransaction) => Promise<T>): Promise<T> {
  const { db, sql: _sql, ...services } = deps;
  const cacheChanges: CacheChange[] = [];
  const result = await db.transaction(async (tx) => {
    const t = { ...services, tx, cacheChanges };
    const value = await work(t);
    await announceObservationReadChanges(t);
    return value;
  });
  for (const change of cacheChanges) deps.caches.apply(change);
  return result;
}
