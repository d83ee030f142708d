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
} as const;

/** How often a holder checks that it still holds its lock (lost when its connection was). */
const RECHECK_MS = 30_000;

export interface SessionLock {
  /** The connection holding the lock, for work that must happen under it. */
  connection: postgres.ReservedSql;
  release(): Promise<void>;
}

/** The lock's key as SQL parameters: a number as is, a string through `hashtext`. */
const keyOf = (connection: postgres.ReservedSql, key: number | string) => (typeof key === "number" ? connection`${key}::int` : connection`hashtext(${key})`);

/** Takes the lock on a connection of its own (waits while another holds it exclusively) and keeps it until `release`. */
export async function holdSessionLock(options: { deps: Deps; space: number; key: number | string; shared?: boolean }): Promise<SessionLock> {
  const { deps } = options;
  const connection = await deps.sql.reserve();
  const take = options.shared ? connection`pg_advisory_lock_shared` : connection`pg_advisory_lock`;
  const tryTake = options.shared ? connection`pg_try_advisory_lock_shared` : connection`pg_try_advisory_lock`;
  const key = keyOf(connection, options.key);
  const backToPool = async () => {
    await connection`reset statement_timeout`.catch(() => undefined);
    connection.release();
  };
  try {
    // The wait lasts as long as the holder keeps the lock: the pool's statement_timeout does not bound it.
    await connection`set statement_timeout = 0`;
    await connection`select ${take}(${options.space}::int, ${key})`;
  } catch (error) {
    await backToPool();
    throw error;
  }
  // A lost connection loses the lock; take it again.
  const recheck = setInterval(() => {
    void connection`
      select case when exists (
               select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
                  and classid = ${options.space}::int::oid and objid = ${key}::oid and objsubid = 2)
             then true else ${tryTake}(${options.space}::int, ${key}) end`.catch((error: unknown) =>
      deps.logger.warn({ err: error }, "could not renew a presence lock"),
    );
  }, RECHECK_MS);
  recheck.unref();
  let released = false;
  return {
    connection,
    async release() {
      if (released) return;
      released = true;
      clearInterval(recheck);
      await connection`select pg_advisory_unlock_all()`.catch(() => undefined);
      await backToPool();
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
