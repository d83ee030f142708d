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
