import type { Deps } from "../deps";

/**
 * Which server processes are running, decided by something that cannot outlive its process: each
 * running server holds a shared session-level advisory lock on a connection of its own. PostgreSQL
 * releases it when the holder unlocks it (a clean stop) or when the holder's backend ends (a kill),
 * unlike `pg_stat_activity`, whose rows of a stopped process's closing backends linger for a
 * moment. Advisory locks belong to one database, so clusters sharing a PostgreSQL server do not
 * see each other.
 */
/** Server processes name their database connections with this prefix and a per-process id (for operators). */
export const SERVER_APPLICATION_PREFIX = "meridian-server:";
const LOCK_SPACE = 0x4d455249; // "MERI"
const PRESENCE_KEY = 1;
const JOIN_KEY = 2;
/** How often a server checks that it still holds its presence lock (lost when its connection was). */
const RECHECK_MS = 30_000;

export interface ServerPresence {
  /** Ends this process's presence: the others stop counting it at once. */
  leave(): Promise<void>;
}

/**
 * Joins the running servers. When no other server is running, this is a start of the whole
 * cluster and `onClusterStart` runs before anyone else may join, so two servers starting together
 * never both take themselves for the first.
 */
export async function joinServerPresence(options: { deps: Deps; onClusterStart?: () => Promise<unknown> }): Promise<ServerPresence> {
  const { deps } = options;
  const connection = await deps.sql.reserve();
  try {
    await connection`select pg_advisory_lock(${LOCK_SPACE}::int, ${JOIN_KEY}::int)`;
    try {
      const [row] = await connection<Array<{ others: number }>>`
        select count(*)::int as others from pg_locks
         where locktype = 'advisory' and granted and pid <> pg_backend_pid()
           and database = (select oid from pg_database where datname = current_database())
           and classid = ${LOCK_SPACE}::int::oid and objid = ${PRESENCE_KEY}::int::oid and objsubid = 2`;
      await connection`select pg_advisory_lock_shared(${LOCK_SPACE}::int, ${PRESENCE_KEY}::int)`;
      if (!row?.others) await options.onClusterStart?.();
    } finally {
      await connection`select pg_advisory_unlock(${LOCK_SPACE}::int, ${JOIN_KEY}::int)`;
    }
  } catch (error) {
    connection.release();
    throw error;
  }

  // A lost connection loses the lock; take it again (without a notice: the cluster did not start).
  const recheck = setInterval(() => {
    void connection`
      select case when exists (
               select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
                  and classid = ${LOCK_SPACE}::int::oid and objid = ${PRESENCE_KEY}::int::oid and objsubid = 2)
             then true else pg_try_advisory_lock_shared(${LOCK_SPACE}::int, ${PRESENCE_KEY}::int) end`.catch((error: unknown) =>
      deps.logger.warn({ err: error }, "could not renew the server presence lock"),
    );
  }, RECHECK_MS);
  recheck.unref();

  let left = false;
  return {
    async leave() {
      if (left) return;
      left = true;
      clearInterval(recheck);
      await connection`select pg_advisory_unlock_all()`.catch(() => undefined);
      connection.release();
    },
  };
}

/** How many server processes are running now (for the health stage of integrity scans). */
export async function countRunningServers(deps: Deps): Promise<number> {
  const [row] = await deps.sql<Array<{ count: number }>>`
    select count(distinct pid)::int as count from pg_locks
     where locktype = 'advisory' and granted
       and database = (select oid from pg_database where datname = current_database())
       and classid = ${LOCK_SPACE}::int::oid and objid = ${PRESENCE_KEY}::int::oid and objsubid = 2`;
  return row?.count ?? 0;
}
