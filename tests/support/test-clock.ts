import type { Deps } from "@meridian/domain/platform";
import type { TestServer } from "./test-server";

export interface TestClock {
  now(): number;
  /** Moves the server's clock (forward only) and wakes every sleeper that is due. */
  set(ms: number): void;
  /** Resolves once the clock has moved `ms` past where it stands now: a simulator waits its exposures on this. */
  sleep(ms: number): Promise<void>;
}

/**
 * Replaces the server's clock (`deps.now`, which its in-process worker shares) with one the test moves;
 * a test runtime (test-runtime.ts) is held by its `deps` alike.
 */
export function controlServerClock(server: TestServer | { deps: Deps }, startMs: number): TestClock {
  let current = startMs;
  let sleepers: Array<{ due: number; wake: () => void }> = [];
  const deps = "deps" in server ? server.deps : server.server.runtime.deps;
  deps.now = () => new Date(current);
  return {
    now: () => current,
    set(ms) {
      if (ms < current) throw new Error(`the test clock only moves forward (${new Date(ms).toISOString()} < ${new Date(current).toISOString()})`);
      current = ms;
      const due = sleepers.filter((sleeper) => sleeper.due <= current);
      sleepers = sleepers.filter((sleeper) => sleeper.due > current);
      for (const sleeper of due) sleeper.wake();
    },
    sleep(ms) {
      return new Promise((resolve) => {
        if (ms <= 0) return resolve();
        sleepers.push({ due: current + ms, wake: resolve });
      });
    },
  };
}
