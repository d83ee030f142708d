import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, loginSession, logout, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let account: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  account = await createAccount(server);
});
afterAll(() => server?.stop());

const me = (token: string) => server.request("/api/v1/auth/me", { token });

describe("POST /api/v1/auth/logout", () => {
  it("answers 204 with no body, and the token stops working", async () => {
    const { token } = await loginSession(server, account);
    expect((await me(token)).status).toBe(200);
    const response = await server.request("/api/v1/auth/logout", { method: "POST", token });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    await expectProblem(await me(token), 401, "UNAUTHENTICATED");
  });

  it("clears the session cookie", async () => {
    const { token } = await loginSession(server, account);
    const response = await server.request("/api/v1/auth/logout", { method: "POST", token });
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^session=;/);
    expect(cookie).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
  });

  it("ends a cookie session sent from this site", async () => {
    const { token, cookie } = await loginSession(server, account);
    const response = await server.request("/api/v1/auth/logout", { method: "POST", headers: { cookie, origin: server.url } });
    expect(response.status).toBe(204);
    await expectProblem(await me(token), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/auth/me", { headers: { cookie } }), 401, "UNAUTHENTICATED");
  });

  it("ends only that session: the user's other sessions keep working", async () => {
    const first = await loginSession(server, account);
    const second = await loginSession(server, account);
    await logout(server, first.token);
    await expectProblem(await me(first.token), 401, "UNAUTHENTICATED");
    expect((await me(second.token)).status).toBe(200);
  });

  it("with an API key revokes nothing: the key keeps working", async () => {
    const { key } = await createApiKey(server, account.token);
    await logout(server, key);
    expect((await me(key)).status).toBe(200);
  });

  it("does not let the password stop working: signing in again gives a new working token", async () => {
    const { token } = await loginSession(server, account);
    await server.request("/api/v1/auth/logout", { method: "POST", token });
    const again = await loginSession(server, account);
    expect(again.token).not.toBe(token);
    expect((await me(again.token)).status).toBe(200);
  });
});
