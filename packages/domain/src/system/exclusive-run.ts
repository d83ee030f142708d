import type { Deps } from "../deps";

/**
 * Runs `work` while holding a session advisory lock on a connection of its own. A second run of
 * the same key (the queued job and the CLI, or a retry overlapping a slow first run) waits, then
 * finds the work done; a run whose process dies releases the lock with its connection.
 */
export async function runExclusively<T>(options: { deps: Deps; key: string; work: () => Promise<T> }): Promise<T> {
  const { deps, key, work } = options;
  const connection = await deps.sql.reserve();
  try {
    // The wait lasts as long as the run before (a backup, a restore): the pool's statement_timeout does not bound it.
    await connection`set statement_timeout = 0`;
    await connection`select pg_advisory_lock(hashtext(${key}))`;
    try {
      return await work();
    } finally {
      await connection`select pg_advisory_unlock(hashtext(${key}))`;
    }
  } finally {
    await connection`reset statement_timeout`.catch(() => undefined);
    connection.release();
  }
}
