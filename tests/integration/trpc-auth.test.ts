import { createCaller, type TrpcContext } from "@meridian/api";
import { authenticateToken } from "@meridian/domain/auth";
import { AppError } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let account: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  account = await createAccount(server, { password: "trpc password" });
});
afterAll(() => server?.stop());

interface TrpcError {
  message: string;
  code: number;
  data: { code: string; httpStatus: number; errors: Array<{ path: string; message: string }> | null; requestId: string | null };
}

const mutation = (procedure: string, input: unknown, init: { token?: string; headers?: Record<string, string> } = {}) =>
  server.request(`/trpc/${procedure}`, { method: "POST", json: input, token: init.token, headers: init.headers });
const query = (procedure: string, input?: unknown, token?: string) =>
  server.request(`/trpc/${procedure}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { token });

async function result<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { result: { data: T } }).result.data;
}

/** Asserts a tRPC error answer whose data.code is the stable Meridian code, without a stack. */
async function expectTrpcError(response: Response, status: number, code: string): Promise<TrpcError> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(text).not.toMatch(/"stack"|\n\s+at |\.ts:\d+|node_modules/);
  const { error } = JSON.parse(text) as { error: TrpcError };
  expect(error.data.code).toBe(code);
  expect(error.data.httpStatus).toBe(status);
  expect(error.message.length).toBeGreaterThan(0);
  expect(Object.keys(error.data).sort()).toEqual(["code", "errors", "httpStatus", "requestId"]);
  return error;
}

describe("tRPC over HTTP", () => {
  it("signs up a user who then logs in over REST", async () => {
    const created = await result<{ user: { id: string; email: string }; token: string }>(
      await mutation("auth.signup", { email: "trpc-made@example.com", password: "made by trpc", name: "From tRPC" }),
    );
    expect(created.user.email).toBe("trpc-made@example.com");
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: "TRPC-made@example.com", password: "made by trpc" } });
    expect(login.status).toBe(200);
    expect((await login.json()).user.id).toBe(created.user.id);
    const me = await server.request("/api/v1/auth/me", { token: created.token });
    expect((await me.json()).id).toBe(created.user.id);
  });

  it("sets the session cookie on login, like REST", async () => {
    const response = await mutation("auth.login", { email: account.email, password: account.password });
    const { token } = await result<{ token: string }>(response.clone());
    const attributes = (response.headers.get("set-cookie") ?? "").split(";").map((part) => part.trim());
    expect(attributes[0]).toBe(`session=${token}`);
    expect(attributes).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Lax"]));
  });

  it("answers EMAIL_TAKEN for an address registered over REST, case-insensitively", async () => {
    const error = await expectTrpcError(
      await mutation("auth.signup", { email: account.email.toUpperCase(), password: "long enough", name: "Dup" }),
      409,
      "EMAIL_TAKEN",
    );
    // Named on the email field, as over REST.
    expect(error.data.errors).toEqual([{ path: "email", message: "An account with this email already exists: sign in, or reset its password." }]);
  });

  it("answers INVALID_CREDENTIALS with the same message for a wrong password and an unknown email", async () => {
    const wrong = await expectTrpcError(await mutation("auth.login", { email: account.email, password: "not it" }), 401, "INVALID_CREDENTIALS");
    const unknown = await expectTrpcError(await mutation("auth.login", { email: "nobody@example.com", password: "not it" }), 401, "INVALID_CREDENTIALS");
    expect(unknown.message).toBe(wrong.message);
  });

  it("answers VALIDATION_FAILED listing the failing fields", async () => {
    const error = await expectTrpcError(await mutation("auth.signup", { email: "bad", password: "short", name: "" }), 400, "VALIDATION_FAILED");
    expect(error.data.errors?.map((entry) => entry.path).sort()).toEqual(["email", "name", "password"]);
  });

  it("answers VALIDATION_FAILED for malformed JSON and unknown fields", async () => {
    const malformed = await expectTrpcError(
      await server.request("/trpc/auth.login", { method: "POST", body: '{"email":', headers: { "content-type": "application/json" } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(malformed.message).not.toMatch(/position|Unexpected|SyntaxError/);
    await expectTrpcError(await mutation("auth.login", { email: account.email, password: account.password, admin: true }), 400, "VALIDATION_FAILED");
    await expectTrpcError(await mutation("user.revokeApiKey", { id: "\u0000" }, { token: account.token }), 400, "VALIDATION_FAILED");
  });

  it("answers UNAUTHENTICATED without, or with bad, credentials", async () => {
    await expectTrpcError(await query("user.profile"), 401, "UNAUTHENTICATED");
    await expectTrpcError(await query("user.apiKeys", undefined, "garbage"), 401, "UNAUTHENTICATED");
    await expectTrpcError(await mutation("user.updateProfile", { name: "x" }), 401, "UNAUTHENTICATED");
    await expectTrpcError(await mutation("auth.logout", {}), 401, "UNAUTHENTICATED");
  });

  it("answers NOT_FOUND for an unknown procedure and for someone else's key", async () => {
    await expectTrpcError(await query("auth.nothing"), 404, "NOT_FOUND");
    const other = await createAccount(server);
    const { id } = await createApiKey(server, other.token);
    await expectTrpcError(await mutation("user.revokeApiKey", { id }, { token: account.token }), 404, "NOT_FOUND");
  });

  it("auth.me is null when signed out and the REST user when signed in", async () => {
    expect(await result(await query("auth.me"))).toBeNull();
    const me = await result<{ id: string }>(await query("auth.me", undefined, account.token));
    const rest = await (await server.request("/api/v1/auth/me", { token: account.token })).json();
    expect(me).toEqual(rest);
  });

  it("shares API keys with REST both ways", async () => {
    const owner = await createAccount(server);
    const viaTrpc = await result<{ id: string; key: string }>(await mutation("user.createApiKey", { name: "from trpc" }, { token: owner.token }));
    expect((await server.request("/api/v1/auth/me", { token: viaTrpc.key })).status).toBe(200);
    const listed = await (await server.request("/api/v1/user/api-keys", { token: owner.token })).json();
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(viaTrpc.id);

    const viaRest = await createApiKey(server, owner.token, "from rest");
    expect((await result<{ items: Array<{ id: string }> }>(await query("user.apiKeys", undefined, viaRest.key))).items.map((item) => item.id)).toContain(
      viaRest.id,
    );
    await result(await mutation("user.revokeApiKey", { id: viaRest.id }, { token: owner.token }));
    await expectProblem(await server.request("/api/v1/auth/me", { token: viaRest.key }), 401, "UNAUTHENTICATED");
  });

  it("shares the profile with REST", async () => {
    const owner = await createAccount(server);
    const updated = await result<{ name: string }>(
      await mutation("user.updateProfile", { name: "Via tRPC", notificationPreferences: { push: true } }, { token: owner.token }),
    );
    expect(updated.name).toBe("Via tRPC");
    const rest = await (await server.request("/api/v1/user/profile", { token: owner.token })).json();
    expect(rest).toEqual(updated);
    expect(rest.notificationPreferences.push).toBe(true);
  });

  it("logout over tRPC ends the session for REST", async () => {
    const { token } = await loginSession(server, account);
    await result(await mutation("auth.logout", {}, { token }));
    await expectProblem(await server.request("/api/v1/auth/me", { token }), 401, "UNAUTHENTICATED");
  });

  it("refuses a cookie-authenticated mutation from a foreign origin and accepts one from this site", async () => {
    const owner = await createAccount(server);
    const foreign = await mutation("user.updateProfile", { name: "Forged" }, { headers: { cookie: `session=${owner.token}`, origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("CROSS_ORIGIN_REQUEST");
    const same = await mutation("user.updateProfile", { name: "Genuine" }, { headers: { cookie: `session=${owner.token}`, origin: server.url } });
    expect((await result<{ name: string }>(same)).name).toBe("Genuine");
    expect((await (await server.request("/api/v1/user/profile", { token: owner.token })).json()).name).toBe("Genuine");
  });
});

describe("tRPC caller (createCaller)", () => {
  const context = (overrides: Partial<TrpcContext> = {}): TrpcContext & { tokens: Array<string | null> } => {
    const tokens: Array<string | null> = [];
    return {
      deps: server.server.runtime.deps,
      principal: undefined,
      credentialSource: undefined,
      token: undefined,
      client: { ip: "203.0.113.7", userAgent: "vitest" },
      requestId: "caller-test",
      secureCookies: false,
      linkOrigin: "http://127.0.0.1",
      setSessionToken: (token) => tokens.push(token),
      tokens,
      ...overrides,
    };
  };
  const signedIn = async (token: string) => {
    const principal = await authenticateToken({ deps: server.server.runtime.deps, token });
    expect(principal).toBeDefined();
    return context({ principal, credentialSource: "bearer", token });
  };

  async function rejection(promise: Promise<unknown>) {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught as { code: string; cause?: unknown; message: string },
    );
    expect(error, "the call should have failed").toBeDefined();
    return error!;
  }

  it("signs up through the same domain function: the user logs in over REST", async () => {
    const ctx = context();
    const created = await createCaller(ctx).auth.signup({ email: "Caller@Example.com", password: "caller password", name: "Caller" });
    expect(ctx.tokens).toEqual([created.token]);
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: "caller@example.com", password: "caller password" } });
    expect(login.status).toBe(200);
    expect((await login.json()).user.id).toBe(created.user.id);
    expect((await server.request("/api/v1/auth/me", { token: created.token })).status).toBe(200);
  });

  it("logs in a REST user and returns the same user as REST", async () => {
    const ctx = context();
    const { user, token } = await createCaller(ctx).auth.login({ email: account.email, password: account.password });
    expect(ctx.tokens).toEqual([token]);
    expect(user).toEqual(await (await server.request("/api/v1/auth/me", { token: account.token })).json());
  });

  it("fails with CONFLICT caused by EMAIL_TAKEN", async () => {
    const error = await rejection(createCaller(context()).auth.signup({ email: account.email.toUpperCase(), password: "long enough", name: "Dup" }));
    expect(error.code).toBe("CONFLICT");
    expect(error.cause).toBeInstanceOf(AppError);
    expect((error.cause as AppError).code).toBe("EMAIL_TAKEN");
  });

  it("fails with UNAUTHORIZED caused by INVALID_CREDENTIALS", async () => {
    const error = await rejection(createCaller(context()).auth.login({ email: account.email, password: "wrong" }));
    expect(error.code).toBe("UNAUTHORIZED");
    expect((error.cause as AppError).code).toBe("INVALID_CREDENTIALS");
  });

  it("fails with UNAUTHORIZED caused by UNAUTHENTICATED without a principal", async () => {
    const error = await rejection(createCaller(context()).user.profile());
    expect(error.code).toBe("UNAUTHORIZED");
    expect((error.cause as AppError).code).toBe("UNAUTHENTICATED");
  });

  it("fails with BAD_REQUEST for invalid input, before any side effect", async () => {
    const ctx = context();
    const error = await rejection(createCaller(ctx).auth.signup({ email: "nope", password: "x", name: "" }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(ctx.tokens).toEqual([]);
  });

  it("acts for the principal it is given, on the same data REST sees", async () => {
    const owner = await createAccount(server);
    const caller = createCaller(await signedIn(owner.token));
    const { id, key } = await caller.user.createApiKey({ name: "caller key" });
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(200);
    expect((await caller.user.apiKeys()).items.map((item) => item.id)).toEqual([id]);
    await caller.user.updateProfile({ notificationPreferences: { email: false } });
    expect((await (await server.request("/api/v1/user/profile", { token: owner.token })).json()).notificationPreferences.email).toBe(false);
    await caller.user.revokeApiKey({ id });
    await expectProblem(await server.request("/api/v1/auth/me", { token: key }), 401, "UNAUTHENTICATED");
  });

  it("logs out the session it was given", async () => {
    const { token } = await loginSession(server, account);
    const ctx = await signedIn(token);
    expect(await createCaller(ctx).auth.logout()).toEqual({ ok: true });
    expect(ctx.tokens).toEqual([null]);
    await expectProblem(await server.request("/api/v1/auth/me", { token }), 401, "UNAUTHENTICATED");
  });
});
