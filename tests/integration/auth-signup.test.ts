import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

const signup = (json: unknown) => server.request("/api/v1/auth/signup", { method: "POST", json });

describe("POST /api/v1/auth/signup", () => {
  it("creates the user and answers 201 {user, token} with an HttpOnly SameSite=Lax session cookie", async () => {
    const before = Date.now();
    const response = await signup({ email: "ada@example.com", password: "analytical engine", name: "Ada Lovelace" });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toEqual({
      user: { id: expect.any(String), email: "ada@example.com", name: "Ada Lovelace", roles: [], createdAt: expect.any(String), avatarUrl: null },
      token: expect.any(String),
    });
    expect(body.user.id.length).toBeGreaterThan(0);
    expect(body.token.length).toBeGreaterThanOrEqual(32);
    expect(body.user.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(new Date(body.user.createdAt).getTime()).toBeGreaterThanOrEqual(before - 60_000);
    expect(JSON.stringify(body)).not.toMatch(/password|hash/i);

    const cookie = response.headers.get("set-cookie") ?? "";
    const attributes = cookie.split(";").map((part) => part.trim());
    expect(attributes[0]).toBe(`session=${body.token}`);
    expect(attributes).toContain("HttpOnly");
    expect(attributes).toContain("SameSite=Lax");
    expect(attributes).toContain("Path=/");
  });

  it("returns a token that authenticates as the new user, by bearer and by cookie", async () => {
    const response = await signup({ email: "grace@example.com", password: "cobol compiler", name: "Grace Hopper" });
    const { user, token } = await response.json();
    const byBearer = await server.request("/api/v1/auth/me", { token });
    expect(byBearer.status).toBe(200);
    expect(await byBearer.json()).toEqual(user);
    const byCookie = await server.request("/api/v1/auth/me", { headers: { cookie: `session=${token}` } });
    expect(byCookie.status).toBe(200);
    expect((await byCookie.json()).id).toBe(user.id);
  });

  it("lets the new user log in with the same password", async () => {
    await signup({ email: "alan@example.com", password: "turing machine", name: "Alan" });
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: "alan@example.com", password: "turing machine" } });
    expect(login.status).toBe(200);
  });

  it("trims surrounding whitespace of email and name", async () => {
    const response = await signup({ email: "  spaced@example.com ", password: "12345678", name: "  Spaced Out  " });
    expect(response.status).toBe(201);
    const { user } = await response.json();
    expect(user.email).toBe("spaced@example.com");
    expect(user.name).toBe("Spaced Out");
  });

  it("accepts a password of exactly 8 characters", async () => {
    expect((await signup({ email: "eight@example.com", password: "12345678", name: "Eight" })).status).toBe(201);
  });

  it("accepts names in any script, with emoji and format marks", async () => {
    for (const [index, name] of ["Émilie du Châtelet", "李白", "مريم‏", "Zoë 🔭", "a\u200bb"].entries()) {
      const response = await signup({ email: `script${index}@example.com`, password: "telescope!", name });
      expect(response.status).toBe(201);
      expect((await response.json()).user.name).toBe(name);
    }
  });

  it("gives each account a distinct id and token", async () => {
    const first = await (await signup({ email: "one@example.com", password: "password1", name: "One" })).json();
    const second = await (await signup({ email: "two@example.com", password: "password1", name: "Two" })).json();
    expect(first.user.id).not.toBe(second.user.id);
    expect(first.token).not.toBe(second.token);
  });
});
