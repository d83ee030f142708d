import { afterAll, beforeAll } from "vitest";
import { startObservingSetup, type ObservingSetup } from "./observing-setup";

/**
 * The file's observing setup (`startObservingSetup`), started before its tests and stopped after them. The fields are
 * filled in by beforeAll, so read them inside tests and hooks, not while the file is collected.
 */
export function useObservingSetup(admin: { email: string; password: string }, name: string) {
  const setup = {} as ObservingSetup & { deps: () => ObservingSetup["server"]["server"]["runtime"]["deps"] };
  beforeAll(async () => {
    Object.assign(setup, await startObservingSetup(admin, name));
  });
  afterAll(async () => {
    // A start that failed left nothing to stop.
    if ("server" in setup) await setup.server.stop();
  });
  setup.deps = () => setup.server.server.runtime.deps;
  return setup;
}
