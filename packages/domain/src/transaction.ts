import type { Transaction } from "@meridian/db";
import type { Deps } from "./deps";

/**
 * What domain code inside a transaction works with: the transaction and the process's services,
 * but not the pool (`db`, `sql`), so nothing called inside a transaction can write beside it.
 * Functions that run inside one take it as `t` in their options object.
 */
export interface InTransaction extends Omit<Deps, "db" | "sql"> {
  tx: Transaction;
}

/** The one way into a transaction: `work` gets the transaction context and nothing else of the pool. */
export function inTransaction<T>(deps: Deps, work: (t: InTransaction) => Promise<T>): Promise<T> {
  const { db, sql: _sql, ...services } = deps;
  return db.transaction((tx) => work({ ...services, tx }));
}
