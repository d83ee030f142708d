import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";

/** What a balancer in front reads to keep its own idle upstream connections shorter (infra/README.md). */

let configured: TestServer;
let defaulted: TestServer;
beforeAll(async () => {
  [configured, defaulted] = await Promise.all([
    startTestServer({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "7000" }),
    startTestServer({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "5000" }),
  ]);
});
afterAll(async () => {
  await Promise.all([configured?.stop(), defaulted?.stop()]);
});

function keepAliveHeader(server: TestServer): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true });
    http
      .get(`${server.url}/api/health/live`, { agent }, (response) => {
        response.resume();
        response.once("end", () => {
          agent.destroy();
          resolve(response.headers["keep-alive"]?.toString());
        });
      })
      .once("error", reject);
  });
}

describe("HTTP_KEEP_ALIVE_TIMEOUT_MS", () => {
  it("is the idle time each keep-alive response announces", async () => {
    expect(await keepAliveHeader(configured)).toBe("timeout=7");
    expect(await keepAliveHeader(defaulted)).toBe("timeout=5");
  });
});
