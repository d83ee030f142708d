import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";

/** Behind a load balancer an operator (and the topology test) reads which process answered each response. */

let named: TestServer;
let unnamed: TestServer;
beforeAll(async () => {
  [named, unnamed] = await Promise.all([startTestServer({ SERVED_BY: "server-a" }), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([named?.stop(), unnamed?.stop()]);
});

describe("X-Served-By", () => {
  it("names the process on every kind of response: API, refusal, health, documents and the web app", async () => {
    for (const [path, status] of [
      // Liveness, not the full health: its one-second object-store ping can answer 503 on a loaded machine.
      ["/api/health/live", 200],
      ["/api/v1/auth/me", 401],
      ["/no/such/path", 404],
      ["/api/openapi.json", 200],
      ["/", 302],
    ] as const) {
      const response = await named.request(path, { redirect: "manual" });
      expect(response.status, path).toBe(status);
      expect(response.headers.get("x-served-by"), path).toBe("server-a");
    }
  });

  it("defaults to the host name and process id", async () => {
    const response = await unnamed.request("/api/health/live");
    expect(response.headers.get("x-served-by")).toMatch(/^.+:\d+$/);
  });
});
