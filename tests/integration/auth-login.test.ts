import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let account: Account;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, ADMIN_EMAIL: "Admin@Example.com", ADMIN_PASSWORD: "admin password" });
  account = await createAccount(server, { email: "Mixed.Case@Example.com", password: "orbital period", name: "Kepler" });
});
afterAll(() => server?.stop());

const login = (json: unknown) => server.request("/api/v1/auth/login", { method: "POST", json });

describe("POST /api/v1/auth/login", () => {
  it("answers 200 {user, token} and sets the HttpOnly SameSite=Lax session cookie", async () => {
    const response = await login({ email: account.email, password: account.password });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      user: { id: account.id, email: "Mixed.Case@Example.com", name: "Kepler", roles: [], avatarUrl: null, createdAt: expect.any(String) },
      token: expect.any(String),
    });
    const attributes = (response.headers.get("set-cookie") ?? "").split(";").map((part) => part.trim());
    expect(attributes[0]).toBe(`session=${body.token}`);
    expect(attributes).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Lax", "Path=/"]));
  });

  it("issues a new session on each login, all of them valid", async () => {
    const first = (await (await login({ email: account.email, password: account.password })).json()).token;
    const second = (await (await login({ email: account.email, password: account.password })).json()).token;
    expect(first).not.toBe(second);
    for (const token of [first, second, account.token]) expect((await server.request("/api/v1/auth/me", { token })).status).toBe(200);
  });

  it("authenticates GET /api/v1/auth/me with the cookie alone", async () => {
    const response = await login({ email: account.email, password: account.password });
    const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0]!;
    const me = await server.request("/api/v1/auth/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: account.id, email: account.email });
  });

  it.each(["mixed.case@example.com", "MIXED.CASE@EXAMPLE.COM", "  mixed.CASE@example.com  "])("compares emails case-insensitively (%s)", async (email) => {
    const response = await login({ email, password: account.password });
    expect(response.status).toBe(200);
    expect((await response.json()).user.id).toBe(account.id);
  });

  it("signs in the ADMIN_EMAIL user with the serverAdmin role", async () => {
    const response = await login({ email: "admin@example.com", password: "admin password" });
    expect(response.status).toBe(200);
    const { user, token } = await response.json();
    expect(user.roles).toContain("serverAdmin");
    const me = await (await server.request("/api/v1/auth/me", { token })).json();
    expect(me.roles).toContain("serverAdmin");
    expect(me.email).toBe("Admin@Example.com");
  });
});
