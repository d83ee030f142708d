import type postgres from "postgres";
import type { Deps } from "../deps";

/**
 * Session-level advisory locks that say "this process is alive": PostgreSQL releases one when its
 * holder unlocks it (a clean stop) or when the holder's backend ends (a killed process's socket
 * closes), unlike heartbeat rows or `pg_stat_activity`, which outlive a process for a while.
 * Locks are keyed by two int4s: a space per purpose and a key in it (an id's `hashtext`). They
 * belong to one database, so clusters sharing a PostgreSQL server do not see each other.
 */
export const LOCK_SPACES = {
  /** Every running server holds (serverPresence, 1) shared; (serverPresence, 2) orders starts. */
  serverPresence: 0x4d455249,
  /** Every running worker holds (workerPresence, hashtext(workerId)). */
  workerPresence: 0x4d455257,
  /** A run of work that must not overlap another of the same key (`runExclusively`). */
  exclusiveRun: 0x4d455258,
} as const;

/**
 * How often a holder checks that its connection, and with it the lock, is still there. A restart
 * of PostgreSQL (or a connection cut) ends every session at once: the holder takes the lock again
 * on a new connection within this, while the others still count it alive (recover-stale-workers.ts).
 */
const RECHECK_MS = 1_000;

export interface SessionLock {
  release(): Promise<void>;
}

/** The lock's key as SQL parameters: a number as is, a string through `hashtext`. */
const keyOf = (connection: postgres.ReservedSql, key: number | string) => (typeof key === "number" ? connection`${key}::int` : connection`hashtext(${key})`);

/**
 * Whether a query failed because its connection is gone (closed, reset, or ended by the server:
 * FATAL), rather than by an error of the statement on a connection that still works.
 */
function connectionLost(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return typeof severity !== "string" || severity === "FATAL" || severity === "PANIC";
}

/**
 * Takes the lock on a connection of its own (waits while another holds it exclusively) and keeps it until `release`.
 *
 * A connection that is gone is never given back to the pool (postgres.js would hand its dead socket
 * to the next query): it is left to the pool, which connects it again when it needs it, and the lock
 * is taken again at once on a new connection. Whoever checks the lock meanwhile finds it free for
 * that moment; recover-stale-workers.ts tells that from a dead holder by PostgreSQL's start time.
 */
export async function holdSessionLock(options: { deps: Deps; space: number; key: number | string; shared?: boolean }): Promise<SessionLock> {
  const { deps, space } = options;
  const take = (connection: postgres.ReservedSql) => (options.shared ? connection`pg_advisory_lock_shared` : connection`pg_advisory_lock`);
  const tryTake = (connection: postgres.ReservedSql) => (options.shared ? connection`pg_try_advisory_lock_shared` : connection`pg_try_advisory_lock`);
  let connection: postgres.ReservedSql | undefined = await deps.sql.reserve();
  try {
    // The wait lasts as long as the holder keeps the lock: the pool's statement_timeout does not bound it.
    await connection`set statement_timeout = 0`;
    await connection`select ${take(connection)}(${space}::int, ${keyOf(connection, options.key)})`;
  } catch (error) {
    if (!connectionLost(error)) {
      await connection`reset statement_timeout`.catch(() => undefined);
      connection.release();
    }
    throw error;
  }
  let released = false;
  let renewing: Promise<void> | undefined;
  /** The lock on this connection: still held, or taken again if another did not take it meanwhile. */
  const holdOn = async (on: postgres.ReservedSql) => {
    const key = keyOf(on, options.key);
    const [row] = await on<Array<{ held: boolean }>>`
      select case when exists (
               select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
                  and classid = ${space}::int::oid and objid = ${key}::oid and objsubid = 2)
             then true else ${tryTake(on)}(${space}::int, ${key}) end as held`;
    return row?.held === true;
  };
  const renew = async () => {
    if (connection) {
      try {
        if (!(await holdOn(connection))) deps.logger.warn({ space, key: options.key }, "a session lock was taken by another holder; trying again");
        return;
      } catch (error) {
        if (!connectionLost(error)) return void deps.logger.warn({ err: error }, "could not check a session lock");
        deps.logger.warn({ err: error, space, key: options.key }, "a session lock's connection was lost; taking the lock again on a new one");
        connection = undefined;
      }
    }
    const fresh = await deps.sql.reserve();
    const held = await holdOn(fresh).catch((error: unknown) => {
      if (!connectionLost(error)) fresh.release();
      throw error;
    });
    if (released || !held) {
      if (held) await fresh`select pg_advisory_unlock_all()`.catch(() => undefined);
      fresh.release();
      return;
    }
    connection = fresh;
    deps.logger.warn({ space, key: options.key }, "a session lock is held again on a new connection");
  };
  const recheck = setInterval(() => {
    renewing ??= renew()
      .catch((error: unknown) => deps.logger.warn({ err: error }, "could not take a session lock again yet"))
      .finally(() => (renewing = undefined));
  }, RECHECK_MS);
  recheck.unref();
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(recheck);
      await renewing;
      const holder = connection;
      connection = undefined;
      if (!holder) return;
      try {
        await holder`select pg_advisory_unlock_all()`;
      } catch (error) {
        if (connectionLost(error)) return;
      }
      await holder`reset statement_timeout`.catch(() => undefined);
      holder.release();
    },
  };
}

/** SQL (for drizzle's `sql`) that counts the backends holding a lock of `space`, as text to embed. */
export function lockHeldCondition(options: { space: number; keySql: string }): string {
  const { space, keySql } = options;
  return `exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.granted
      and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = ${space}::int::oid and l.objid = (${keySql})::oid and l.objsubid = 2)`;
}
