import { afterAll, beforeAll } from "vitest";
import { roomyLimits } from "./auth-suite";
import { controlServerClock, type TestClock } from "./test-clock";
import { startTestServer, type TestServer } from "./test-server";

export interface ServerWithLimits {
  readonly server: TestServer;
  /** The server's clock, stopped at the start: a test moves it past a window instead of waiting it out. */
  readonly clock: TestClock;
}

/**
 * A server (HTTP only, no worker) for the tests of a describe block, started before them and stopped
 * after: `limits` set what the block tests, and the limits it does not test stand aside (signups and
 * failed sign-ins per address roomy; per-minute password attempts roomy unless `limits` names them).
 */
export function serverWithLimits(limits: Record<string, string>): ServerWithLimits {
  let server: TestServer | undefined;
  let clock: TestClock | undefined;
  beforeAll(async () => {
    server = await startTestServer({ MERIDIAN_ROLE: "server", ...roomyLimits, ...limits });
    clock = controlServerClock(server, Date.now());
  });
  afterAll(() => server?.stop());
  return {
    get server() {
      if (!server) throw new Error("the server starts in beforeAll");
      return server;
    },
    get clock() {
      if (!clock) throw new Error("the server starts in beforeAll");
      return clock;
    },
  };
}
