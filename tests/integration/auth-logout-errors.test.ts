import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, logout, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

describeAuthSuite(() => server, { method: "POST", path: "/api/v1/auth/logout", prepare: () => ({ path: "/api/v1/auth/logout" }), success: 204 });

describe("POST /api/v1/auth/logout errors", () => {
  it("answers 401 when the same token logs out twice", async () => {
    const { token } = await createAccount(server);
    await logout(server, token);
    await expectProblem(await server.request("/api/v1/auth/logout", { method: "POST", token }), 401, "UNAUTHENTICATED");
  });

  it.each(["GET", "PUT", "DELETE"])("answers 405 METHOD_NOT_ALLOWED with Allow: POST for %s", async (method) => {
    const { token } = await createAccount(server);
    const response = await server.request("/api/v1/auth/logout", { method, token });
    await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("POST");
    expect((await server.request("/api/v1/auth/me", { token })).status).toBe(200);
  });
});
