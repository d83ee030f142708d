import type { Transaction } from "@meridian/db";
import { setImmediate } from "node:timers/promises";
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
  /**
   * Sends a statement whose answer nothing in the transaction waits for (a realtime event's insert): it is awaited
   * with the transaction's last statement, before COMMIT, so it costs no round trip of its own, and its failure
   * still fails the transaction. Not for writes to the tables a page of observations reads: the last statement
   * counts those.
   */
  alongside(statement: Promise<unknown>): void;
  /**
   * Says the work has made every write it will make (answered or not): the count of what it changed
   * (`announceObservationReadChanges`) is made behind them (`behindStatementsMade`) and goes out
   * with them, instead of in a round trip of its own once the work returns. A write made after this
   * call is not counted, so call it only when nothing but reads and `alongside` events follow.
   */
  writesSent(): void;
}

/**
 * Makes a statement once every statement already made in this turn has reached the connection's
 * queue (the next turn of the event loop; a statement gets there some promise steps after it is
 * made, more on some paths than others), so the connection runs it after them; it still goes out
 * with them, without waiting for their answers.
 */
export function behindStatementsMade<T>(make: () => PromiseLike<T>): Promise<T> {
  return setImmediate().then(make);
}

/** The one way into a transaction: `work` gets the transaction context and nothing else of the pool. */
export async function inTransaction<T>(deps: Deps, work: (t: InTransaction) => Promise<T>): Promise<T> {
  const { db, sql: _sql, ...services } = deps;
  const cacheChanges: CacheChange[] = [];
  const result = await db.transaction(async (tx) => {
    const pending: Array<Promise<unknown>> = [];
    const alongside = (statement: Promise<unknown>) => {
      // One `then`, sending it now: drizzle's query objects run again on every `then`.
      const sent = statement.then(() => undefined);
      // Seen below; a transaction that fails before then must not leave an unhandled rejection.
      sent.catch(() => undefined);
      pending.push(sent);
    };
    let counting = false;
    const writesSent = () => {
      if (!counting) alongside(behindStatementsMade(() => announceObservationReadChanges(t)));
      counting = true;
    };
    const t: InTransaction = { ...services, tx, cacheChanges, alongside, writesSent };
    const value = await work(t);
    if (!counting) alongside(announceObservationReadChanges(t));
    // The first failure in the order they were sent: a failed statement aborts the transaction, failing the ones after it too.
    const failed = (await Promise.allSettled(pending)).find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    return value;
  });
  for (const change of cacheChanges) deps.caches.apply(change);
  return result;
}
