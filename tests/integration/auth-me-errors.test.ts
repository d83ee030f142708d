import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

describeAuthSuite(() => server, { method: "GET", path: "/api/v1/auth/me", prepare: () => ({ path: "/api/v1/auth/me" }), success: 200 });

describe("GET /api/v1/auth/me errors", () => {
  it.each(["POST", "PUT", "PATCH", "DELETE"])("answers 405 with Allow: GET, HEAD for %s", async (method) => {
    const { token } = await createAccount(server);
    const response = await server.request("/api/v1/auth/me", { method, token });
    await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });

  it("ignores a valid cookie when a bearer token is sent, and refuses a bad bearer", async () => {
    const { token } = await createAccount(server);
    const response = await server.request("/api/v1/auth/me", { token: "garbage", headers: { cookie: `session=${token}` } });
    await expectProblem(response, 401, "UNAUTHENTICATED");
  });

  it.each([
    ["a Basic scheme", (token: string) => `Basic ${token}`],
    ["a bare token", (token: string) => token],
    ["two tokens", (token: string) => `Bearer ${token} ${token}`],
  ])("refuses %s in Authorization with 401", async (_label, header) => {
    const { token } = await createAccount(server);
    const response = await server.request("/api/v1/auth/me", { headers: { authorization: header(token) } });
    await expectProblem(response, 401, "UNAUTHENTICATED");
  });
});
