import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { holdSessionLock, LOCK_SPACES } from "./session-lock";

/** Server processes name their database connections with this prefix and a per-process id (for operators). */
export const SERVER_APPLICATION_PREFIX = "meridian-server:";
const PRESENCE_KEY = 1;
const JOIN_KEY = 2;
const { serverPresence } = LOCK_SPACES;

export interface ServerPresence {
  /** Ends this process's presence: the others stop counting it at once. */
  leave(): Promise<void>;
}

/**
 * Joins the running servers: each holds the shared presence lock while it runs (see
 * session-lock.ts for why a lock and not `pg_stat_activity`). When no other server holds it, this
 * is a start of the whole cluster and `onClusterStart` runs before anyone else may join, so two
 * servers starting together never both take themselves for the first.
 */
export async function joinServerPresence(options: { deps: Deps; onClusterStart?: () => Promise<unknown> }): Promise<ServerPresence> {
  const { deps } = options;
  const joining = await holdSessionLock({ deps, space: serverPresence, key: JOIN_KEY });
  let presence;
  try {
    const alone = (await countRunningServers(deps)) === 0;
    presence = await holdSessionLock({ deps, space: serverPresence, key: PRESENCE_KEY, shared: true });
    if (alone) await options.onClusterStart?.();
  } catch (error) {
    await presence?.release();
    throw error;
  } finally {
    await joining.release();
  }
  return { leave: () => presence.release() };
}

/** How many server processes are running now (the health stage of integrity scans, cluster starts). */
export async function countRunningServers(deps: Deps): Promise<number> {
  const [row] = await deps.db.execute<{ count: number }>(sql`
    select count(distinct l.pid)::int as count from pg_locks l
     where l.locktype = 'advisory' and l.granted
       and l.database = (select oid from pg_database where datname = current_database())
       and l.classid = ${serverPresence}::int::oid and l.objid = ${PRESENCE_KEY}::int::oid and l.objsubid = 2`);
  return row?.count ?? 0;
}
