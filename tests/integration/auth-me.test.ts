import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession, roomyLimits } from "../support/auth-suite";
import { expectRefusal, startTestRuntime, type TestRuntime } from "../support/test-runtime";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, ADMIN_EMAIL: "chief@example.com", ADMIN_PASSWORD: "chief password" });
});
afterAll(() => server?.stop());

describe("GET /api/v1/auth/me", () => {
  it("returns the signed-in user as {id, email, name, roles, createdAt}", async () => {
    const signup = await server.request("/api/v1/auth/signup", {
      method: "POST",
      json: { email: "me@example.com", password: "long enough", name: "Me Myself" },
    });
    const { user, token } = await signup.json();
    const response = await server.request("/api/v1/auth/me", { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toEqual({ id: user.id, email: "me@example.com", name: "Me Myself", roles: [], avatarUrl: null, createdAt: user.createdAt });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
  });

  it("answers for the key's owner when called with an API key", async () => {
    const account = await createAccount(server);
    const { key } = await createApiKey(server, account.token);
    const response = await server.request("/api/v1/auth/me", { token: key });
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(account.id);
  });

  it("tells users apart", async () => {
    const first = await createAccount(server);
    const second = await createAccount(server);
    expect((await (await server.request("/api/v1/auth/me", { token: first.token })).json()).id).toBe(first.id);
    expect((await (await server.request("/api/v1/auth/me", { token: second.token })).json()).id).toBe(second.id);
  });

  it("includes serverAdmin in roles for the ADMIN_EMAIL user", async () => {
    const { token } = await loginSession(server, { email: "chief@example.com", password: "chief password" });
    const body = await (await server.request("/api/v1/auth/me", { token })).json();
    expect(body.email).toBe("chief@example.com");
    expect(body.roles).toEqual(["serverAdmin"]);
  });

  it("does not give ordinary users serverAdmin", async () => {
    const account = await createAccount(server);
    const body = await (await server.request("/api/v1/auth/me", { token: account.token })).json();
    expect(body.roles).not.toContain("serverAdmin");
  });

  it("reflects profile changes", async () => {
    const account = await createAccount(server);
    const put = await server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name: "Renamed" } });
    expect(put.status).toBe(200);
    expect((await (await server.request("/api/v1/auth/me", { token: account.token })).json()).name).toBe("Renamed");
  });
});

// A rule of the server's start, not of HTTP: on two runtimes over one database, without HTTP.
describe("ADMIN_EMAIL for an existing account", () => {
  it("promotes it at start and keeps its own password", async () => {
    const first = await startTestRuntime();
    let second: TestRuntime | undefined;
    try {
      const account = await first.signup({ email: "later-admin@example.com", password: "own password" });
      expect((await account.caller.auth.me())?.roles).toEqual([]);
      await first.stop();
      // A second server runtime over the same database, now naming this user as admin.
      second = await startTestRuntime({ env: { DATABASE_URL: first.databaseUrl, ADMIN_EMAIL: "LATER-ADMIN@example.com", ADMIN_PASSWORD: "seeded password" } });
      const signedIn = await second.signIn({ email: "later-admin@example.com", password: "own password" });
      expect((await signedIn.caller.auth.me())?.roles).toContain("serverAdmin");
      await expectRefusal(second.anonymous.auth.login({ email: "later-admin@example.com", password: "seeded password" }), 401, "INVALID_CREDENTIALS");
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
