import type postgres from "postgres";
import type { Deps } from "../deps";
import { holdSessionLock, LOCK_SPACES } from "./session-lock";

/**
 * Runs `work` while holding a session advisory lock on a connection of its own. A second run of
 * the same key (the queued job and the CLI, or a retry overlapping a slow first run) waits, then
 * finds the work done; a run whose process dies releases the lock with its connection. One whose
 * connection is cut (PostgreSQL restarted) takes the lock again at once (session-lock.ts).
 */
export async function runExclusively<T>(options: { deps: Deps; key: string; work: () => Promise<T> }): Promise<T> {
  const { deps, key, work } = options;
  const lock = await holdSessionLock({ deps, space: LOCK_SPACES.exclusiveRun, key });
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/**
 * Runs `work` on a connection holding the same lock as `runExclusively`, but only if no run of
 * `key` is under way (nor starts before it ends); answers whether it ran.
 */
export async function runUnlessRunning(options: {
  deps: Deps;
  key: string;
  work: (connection: postgres.ReservedSql) => PromiseLike<unknown>;
}): Promise<boolean> {
  const { deps, key } = options;
  const connection = await deps.sql.reserve();
  try {
    const [taken] = await connection<Array<{ ok: boolean }>>`select pg_try_advisory_lock(${LOCK_SPACES.exclusiveRun}::int, hashtext(${key})) as ok`;
    if (!taken?.ok) return false;
    try {
      await options.work(connection);
      return true;
    } finally {
      await connection`select pg_advisory_unlock(${LOCK_SPACES.exclusiveRun}::int, hashtext(${key}))`;
    }
  } finally {
    connection.release();
  }
}
