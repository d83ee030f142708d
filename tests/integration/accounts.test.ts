import http from "node:http";
import { randomUUID } from "node:crypto";
import { sessionsCollection } from "@meridian/db";
import { MAX_LIVE_SESSIONS } from "@meridian/domain/auth";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, describeAuthSuite, expectProblem, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import { startSmtpCapture } from "../support/smtp-capture";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "accounts-admin@example.com", password: "accounts admin password" };
const HOUR = 3_600_000;
let server: TestServer;
let adminToken: string;
let adminId: string;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { ...roomyLimits, MERIDIAN_ROLE: "all", SMTP_URL: smtp.url }));
  adminId = (await (await server.request("/api/v1/auth/me", { token: adminToken })).json()).id;
});
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
});
const { must } = jsonApi(() => server);

const statusOf = async (path: string, token: string) => (await server.request(path, { token })).status;
const changePassword = (token: string, json: unknown) => server.request("/api/v1/user/password", { method: "PUT", token, json });
/** The newest reset link mailed to `email`, once at least `count` such mails arrived. */
const resetLinkFor = async (email: string, count = 1) => {
  const resetMails = (all: typeof smtp.messages) => all.filter((mail) => mail.to.includes(email) && mail.subject === "Reset your Meridian password");
  const mails = resetMails(await smtp.waitFor((all) => resetMails(all).length >= count));
  const text = mails[mails.length - 1]!.text ?? "";
  const link = text.match(/(\S+)\/app\/reset-password\?token=(\S+)/);
  expect(link, text).not.toBeNull();
  expect(link![1]).toBe(server.url);
  return { token: decodeURIComponent(link![2]!), count: mails.length };
};
const requestReset = (email: string) => server.request("/api/v1/auth/password-reset", { method: "POST", json: { email } });
const confirmReset = (token: string, newPassword: string) =>
  server.request("/api/v1/auth/password-reset/confirm", { method: "POST", json: { token, newPassword } });
const setClock = (offsetMs: number) => {
  server.server.runtime.deps.now = () => new Date(Date.now() + offsetMs);
};
const adminUpdate = (token: string, userId: string, json: unknown) => server.request(`/api/v1/admin/users/${userId}`, { method: "PUT", token, json });

describe("PUT /api/v1/user/password", () => {
  it("needs the current password, ends every other session, keeps the caller's and the API keys", async () => {
    const user = await createAccount(server);
    const other = await loginSession(server, user);
    const key = await createApiKey(server, user.token);
    expect((await changePassword(user.token, { currentPassword: user.password, newPassword: "a brand new password" })).status).toBe(204);

    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(200);
    expect(await statusOf("/api/v1/auth/me", other.token)).toBe(401);
    expect(await statusOf("/api/v1/auth/me", key.key)).toBe(200);
    await expectProblem(
      await server.request("/api/v1/auth/login", { method: "POST", json: { email: user.email, password: user.password } }),
      401,
      "INVALID_CREDENTIALS",
    );
    await loginSession(server, { email: user.email, password: "a brand new password" });
    await smtp.waitFor((all) => all.some((mail) => mail.to.includes(user.email) && mail.subject === "Your Meridian password was changed"));
  });

  it("refuses a wrong current password with 403 INVALID_CREDENTIALS and changes nothing; a short new one with 400", async () => {
    const user = await createAccount(server);
    const other = await loginSession(server, user);
    const wrong = await expectProblem(
      await changePassword(user.token, { currentPassword: "not my password", newPassword: "a brand new password" }),
      403,
      "INVALID_CREDENTIALS",
    );
    expect(wrong.errors).toEqual([{ path: "currentPassword", message: expect.any(String) }]);
    const short = await expectProblem(await changePassword(user.token, { currentPassword: user.password, newPassword: "short" }), 400, "VALIDATION_FAILED");
    expect(short.errors?.[0]?.path).toBe("newPassword");
    await expectProblem(await changePassword(user.token, { currentPassword: user.password }), 400, "VALIDATION_FAILED");
    expect(await statusOf("/api/v1/auth/me", other.token)).toBe(200);
    await loginSession(server, user);
  });

  describeAuthSuite(() => server, {
    method: "PUT",
    path: "/api/v1/user/password",
    prepare: (_server, account) => ({ path: "/api/v1/user/password", json: { currentPassword: account.password, newPassword: account.password } }),
    success: 204,
  });
});

describe("password reset", () => {
  it("answers 202 whether or not the email exists, and mails a single-use link only to an account", async () => {
    const user = await createAccount(server);
    const session = await loginSession(server, user);
    const before = smtp.messages.length;
    const unknown = await requestReset("nobody-here@example.com");
    const known = await requestReset(user.email.toUpperCase());
    expect([unknown.status, known.status]).toEqual([202, 202]);
    expect(await unknown.text()).toBe(await known.text());
    const { token } = await resetLinkFor(user.email);
    expect(smtp.messages.slice(before).some((mail) => mail.to.includes("nobody-here@example.com"))).toBe(false);

    expect((await confirmReset(token, "reset to this password")).status).toBe(204);
    // Every session ends, including the one that was open.
    expect(await statusOf("/api/v1/auth/me", session.token)).toBe(401);
    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(401);
    await loginSession(server, { email: user.email, password: "reset to this password" });
    await expectProblem(await confirmReset(token, "yet another password"), 400, "INVALID_TOKEN");
  });

  it("builds the link from the address the request reached, never from a forged Host header", async () => {
    const user = await createAccount(server);
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ email: user.email });
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/api/v1/auth/password-reset",
          method: "POST",
          headers: { host: "attacker.example", "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.once("error", reject);
      request.end(body);
    });
    expect(status).toBe(202);
    // resetLinkFor insists the link starts with this server's own address.
    await resetLinkFor(user.email);
  });

  it("a link expires after an hour, a newer request replaces older links, and unknown tokens are refused", async () => {
    const user = await createAccount(server);
    await requestReset(user.email);
    const first = await resetLinkFor(user.email);
    await requestReset(user.email);
    const second = await resetLinkFor(user.email, first.count + 1);
    expect(second.token).not.toBe(first.token);
    await expectProblem(await confirmReset(first.token, "never used password"), 400, "INVALID_TOKEN");
    try {
      setClock(HOUR + 1000);
      await expectProblem(await confirmReset(second.token, "too late password"), 400, "INVALID_TOKEN");
    } finally {
      server.server.runtime.deps.now = () => new Date();
    }
    await expectProblem(await confirmReset("mpr_not-a-real-token", "whatever password"), 400, "INVALID_TOKEN");
    await expectProblem(await confirmReset(second.token, "short"), 400, "VALIDATION_FAILED");
    await loginSession(server, user);
  });

  it("is rate limited per email with 429 and Retry-After", async () => {
    const email = `limited-${Date.now()}@example.com`;
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await requestReset(email)).status).toBe(202);
    const limited = await expectProblem(await requestReset(email), 429, "RATE_LIMITED");
    expect(limited).toBeDefined();
    expect(Number((await requestReset(email)).headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("sends nothing to a disabled account", async () => {
    const user = await createAccount(server);
    await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);
    const sent = smtp.messages.length;
    expect((await requestReset(user.email)).status).toBe(202);
    // A reset for someone else goes out after it: once that arrived, the disabled one would have too.
    const other = await createAccount(server);
    await requestReset(other.email);
    await resetLinkFor(other.email);
    expect(smtp.messages.slice(sent).some((mail) => mail.to.includes(user.email))).toBe(false);
  });

  it("tRPC auth.requestPasswordReset and auth.confirmPasswordReset answer like REST", async () => {
    const user = await createAccount(server);
    const requested = await server.request("/trpc/auth.requestPasswordReset", { method: "POST", json: { email: user.email } });
    expect(await trpcData(requested)).toEqual({ ok: true });
    const { token } = await resetLinkFor(user.email);
    const refused = await server.request("/trpc/auth.confirmPasswordReset", { method: "POST", json: { token: "mpr_wrong", newPassword: "via trpc password" } });
    expect(await trpcErrorCode(refused)).toBe("INVALID_TOKEN");
    const confirmed = await server.request("/trpc/auth.confirmPasswordReset", { method: "POST", json: { token, newPassword: "via trpc password" } });
    expect(confirmed.status).toBe(200);
    await loginSession(server, { email: user.email, password: "via trpc password" });
  });
});

describe("my sessions", () => {
  it("lists live sessions newest first with the user agent, marking the current one", async () => {
    const user = await createAccount(server);
    const laptop = await server.request("/api/v1/auth/login", {
      method: "POST",
      json: { email: user.email, password: user.password },
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0" },
    });
    const { token } = await laptop.json();
    const list = await must("/api/v1/user/sessions", { token }, 200);
    expect(list.items).toHaveLength(2);
    expect(list.items[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
      ip: "127.0.0.1",
      current: true,
    });
    expect(list.items[1].current).toBe(false);
    const fromTheOther = await must("/api/v1/user/sessions", { token: user.token }, 200);
    expect(fromTheOther.items.map((item: { current: boolean }) => item.current)).toEqual([false, true]);
  });

  it("signs out one session, or every other one; another user's session is 404", async () => {
    const user = await createAccount(server);
    const stranger = await createAccount(server);
    const second = await loginSession(server, user);
    const third = await loginSession(server, user);
    const list = await must("/api/v1/user/sessions", { token: user.token }, 200);
    const secondId = list.items.find((item: { current: boolean; createdAt: string }, index: number) => !item.current && index === 1)?.id ?? list.items[1].id;

    await expectProblem(await server.request(`/api/v1/user/sessions/${secondId}`, { method: "DELETE", token: stranger.token }), 404, "NOT_FOUND");
    expect((await server.request(`/api/v1/user/sessions/${secondId}`, { method: "DELETE", token: user.token })).status).toBe(204);
    const remaining = [user.token, second.token, third.token].map((token) => statusOf("/api/v1/auth/me", token));
    expect((await Promise.all(remaining)).filter((status) => status === 401)).toHaveLength(1);

    expect((await server.request("/api/v1/user/sessions/revoke-others", { method: "POST", token: user.token })).status).toBe(204);
    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(200);
    expect(await statusOf("/api/v1/auth/me", second.token)).toBe(401);
    expect(await statusOf("/api/v1/auth/me", third.token)).toBe(401);
    expect((await must("/api/v1/user/sessions", { token: user.token }, 200)).items).toHaveLength(1);
    expect(await statusOf("/api/v1/auth/me", stranger.token)).toBe(200);
  });

  it("tRPC user.sessions, user.revokeSession and user.revokeOtherSessions answer like REST", async () => {
    const user = await createAccount(server);
    const other = await loginSession(server, user);
    const sessions = await trpcData<{ items: Array<{ id: string; current: boolean }> }>(await server.request("/trpc/user.sessions", { token: user.token }));
    const otherId = sessions.items.find((item) => !item.current)!.id;
    expect((await server.request("/trpc/user.revokeSession", { method: "POST", token: user.token, json: { id: otherId } })).status).toBe(200);
    expect(await statusOf("/api/v1/auth/me", other.token)).toBe(401);
    const third = await loginSession(server, user);
    expect((await server.request("/trpc/user.revokeOtherSessions", { method: "POST", token: user.token, json: {} })).status).toBe(200);
    expect(await statusOf("/api/v1/auth/me", third.token)).toBe(401);
    const wrong = await server.request("/trpc/user.changePassword", {
      method: "POST",
      token: user.token,
      json: { currentPassword: "nope nope", newPassword: "whatever password" },
    });
    expect(await trpcErrorCode(wrong)).toBe("INVALID_CREDENTIALS");
  });

  /** Sessions of `userId` written straight to the table (a sign-in each would cost a password hash). */
  const seedSessions = async (userId: string, count: number, expiresAt: Date) => {
    const db = server.server.runtime.deps.db;
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const doc = { userId, tokenHash: `seeded-${randomUUID()}`, expiresAt: expiresAt.toISOString(), userAgent: "seeded", ip: null };
      ids.push((await sessionsCollection.insert(db, doc)).id);
    }
    return ids;
  };
  const sessionsLeft = async (ids: string[]) =>
    (await server.server.runtime.deps.db.execute<{ id: string }>(sql`select id from sessions where id in ${ids}`)).map((row) => row.id);

  it(`keeps at most ${MAX_LIVE_SESSIONS} sessions an account: a sign-in beyond them ends the oldest, and its expired ones go`, async () => {
    const user = await createAccount(server); // signing up made the oldest session
    const expired = await seedSessions(user.id, 2, new Date(Date.now() - HOUR));
    const live = await seedSessions(user.id, MAX_LIVE_SESSIONS - 1, new Date(Date.now() + 24 * HOUR));
    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(200);

    const newest = await loginSession(server, user);
    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(401);
    const list = await must("/api/v1/user/sessions", { token: newest.token }, 200);
    expect(list.items).toHaveLength(MAX_LIVE_SESSIONS);
    expect(list.items[0].current).toBe(true);
    expect(await sessionsLeft(expired)).toEqual([]);
    expect((await sessionsLeft(live)).sort()).toEqual([...live].sort());
    // Another account's sessions are not its to count.
    const other = await createAccount(server);
    expect(await statusOf("/api/v1/auth/me", other.token)).toBe(200);
  });

  it("removes expired sessions in the hourly prune_sessions job, and leaves live ones", async () => {
    const user = await createAccount(server);
    const expired = await seedSessions(user.id, 3, new Date(Date.now() - HOUR));
    await server.server.runtime.deps.db.execute(sql`select graphile_worker.add_job('prune_sessions', '{}'::json)`);
    await until("the expired sessions to be removed", async () => (await sessionsLeft(expired)).length === 0);
    expect(await statusOf("/api/v1/auth/me", user.token)).toBe(200);
  });

  for (const route of [
    { method: "GET" as const, path: "/api/v1/user/sessions", prepare: () => ({ path: "/api/v1/user/sessions" }), success: 200 },
    { method: "POST" as const, path: "/api/v1/user/sessions/revoke-others", prepare: () => ({ path: "/api/v1/user/sessions/revoke-others" }), success: 204 },
    {
      method: "DELETE" as const,
      path: "/api/v1/user/sessions/{id}",
      prepare: async (_server: TestServer, account: Account) => {
        const extra = await loginSession(server, account);
        const list = await must("/api/v1/user/sessions", { token: extra.token }, 200);
        return { path: `/api/v1/user/sessions/${list.items.find((item: { current: boolean }) => item.current).id}` };
      },
      success: 204,
    },
  ]) {
    describeAuthSuite(() => server, route);
  }
});

describe("administration of users", () => {
  it("finds a name in any case, accented letters too", async () => {
    const tag = `accent${Date.now()}`;
    const emile = await createAccount(server, { name: `Émile Zoé ${tag}` });
    for (const q of [`émile zoé ${tag}`, `ÉMILE ZOÉ ${tag.toUpperCase()}`]) {
      const page = await must(`/api/v1/admin/users?q=${encodeURIComponent(q)}`, { token: adminToken }, 200);
      expect(
        page.items.map((item: { id: string }) => item.id),
        q,
      ).toEqual([emile.id]);
    }
  });

  it("counts the enabled server admins of the whole server beside any search or page, as LAST_SERVER_ADMIN judges them", async () => {
    const count = async () =>
      (await must(`/api/v1/admin/users?q=${encodeURIComponent("no one is called this")}`, { token: adminToken }, 200)).enabledServerAdmins;
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(1);
    const colleague = await createAccount(server, { name: `Counted ${Date.now()}` });
    expect(await count()).toBe(before);
    await must(`/api/v1/admin/users/${colleague.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    expect(await count()).toBe(before + 1);
    await must(`/api/v1/admin/users/${colleague.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);
    expect(await count()).toBe(before);
    expect((await must(`/api/v1/admin/users?limit=1`, { token: adminToken }, 200)).enabledServerAdmins).toBe(before);
    // Left as it found the server: other tests here count who holds the role.
    await must(`/api/v1/admin/users/${colleague.id}`, { method: "PUT", token: adminToken, json: { roles: [] } }, 200);
  });

  it("lists every account with search and cursor paging (server admins only)", async () => {
    const tag = `finder${Date.now()}`;
    const found = [
      await createAccount(server, { name: `Ann ${tag}` }),
      await createAccount(server, { name: `Bob ${tag}` }),
      await createAccount(server, { email: `${tag}-carol@example.com` }),
    ];
    const first = await must(`/api/v1/admin/users?q=${tag.toUpperCase()}&limit=2`, { token: adminToken }, 200);
    expect(first.items.map((item: { id: string }) => item.id)).toEqual([found[0]!.id, found[1]!.id]);
    expect(first.items[0]).toEqual({
      id: found[0]!.id,
      email: found[0]!.email,
      name: `Ann ${tag}`,
      roles: [],
      disabled: false,
      createdAt: expect.any(String),
      lastLoginAt: null,
    });
    const second = await must(`/api/v1/admin/users?q=${tag}&limit=2&cursor=${first.nextCursor}`, { token: adminToken }, 200);
    expect(second).toEqual({ items: [expect.objectContaining({ id: found[2]!.id })], nextCursor: null, enabledServerAdmins: expect.any(Number) });
    expect((await must(`/api/v1/admin/users?q=${encodeURIComponent("%_")}`, { token: adminToken }, 200)).items).toEqual([]);
    await loginSession(server, found[0]!);
    expect((await must(`/api/v1/admin/users?q=${tag}`, { token: adminToken }, 200)).items[0].lastLoginAt).toEqual(expect.any(String));

    const viaTrpc = await trpcData<{ items: Array<{ id: string }> }>(
      await server.request(trpcQuery("admin.users", { q: tag, limit: 2, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(viaTrpc.items.map((item) => item.id)).toEqual([found[2]!.id]);
    // An account's id was the cursor once; it no longer is one, and a made-up one is no page at all.
    for (const cursor of [...foreignCursors, found[0]!.id]) {
      await expectCursorRefused(await server.request(`/api/v1/admin/users?cursor=${encodeURIComponent(cursor)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("admin.users", { cursor }), { token: adminToken }));
    }

    const member = await createAccount(server);
    await expectProblem(await server.request("/api/v1/admin/users", { token: member.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/api/v1/admin/users?limit=0", { token: adminToken }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request("/api/v1/admin/users"), 401, "UNAUTHENTICATED");
  });

  it("disabling stops the account's sessions and keys at once and refuses its sign-in with 403 ACCOUNT_DISABLED; enabling lets it back", async () => {
    const user = await createAccount(server);
    const key = await createApiKey(server, user.token);
    const session = await loginSession(server, user);
    expect(await statusOf("/api/v1/auth/me", key.key)).toBe(200);
    const disabled = await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);
    expect(disabled).toMatchObject({ id: user.id, disabled: true });
    for (const token of [user.token, session.token, key.key]) expect(await statusOf("/api/v1/auth/me", token)).toBe(401);
    await expectProblem(
      await server.request("/api/v1/auth/login", { method: "POST", json: { email: user.email, password: user.password } }),
      403,
      "ACCOUNT_DISABLED",
    );
    // A wrong password still reads as wrong: the disabled state is told only to who knows the password.
    await expectProblem(
      await server.request("/api/v1/auth/login", { method: "POST", json: { email: user.email, password: "wrong password" } }),
      401,
      "INVALID_CREDENTIALS",
    );

    await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { disabled: false } }, 200);
    await loginSession(server, user);
    expect(await statusOf("/api/v1/auth/me", key.key)).toBe(200);
    const audit = await must("/api/v1/admin/audit?limit=200", { token: adminToken }, 200);
    const actions = audit.items.filter((item: { target: { id: string } }) => item.target.id === user.id).map((item: { action: string }) => item.action);
    expect(actions).toEqual(expect.arrayContaining(["user.disabled", "user.enabled"]));
  });

  it("grants and revokes serverAdmin, never leaving the server without an enabled server admin", async () => {
    const helper = await createAccount(server);
    const granted = await must(`/api/v1/admin/users/${helper.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    expect(granted.roles).toEqual(["serverAdmin"]);
    expect(await statusOf("/api/v1/admin/users", helper.token)).toBe(200);
    await expectProblem(await adminUpdate(adminToken, adminId, { disabled: true }), 403, "FORBIDDEN");
    expect((await must(`/api/v1/admin/users/${adminId}`, { method: "PUT", token: helper.token, json: { roles: [] } }, 200)).roles).toEqual([]);
    // The helper is now the only server admin: it can lose neither the role nor its account.
    await expectProblem(await adminUpdate(helper.token, helper.id, { roles: [] }), 409, "LAST_SERVER_ADMIN");
    await must(`/api/v1/admin/users/${adminId}`, { method: "PUT", token: helper.token, json: { roles: ["serverAdmin"] } }, 200);
    await must(`/api/v1/admin/users/${helper.id}`, { method: "PUT", token: adminToken, json: { roles: [] } }, 200);
    expect(await statusOf("/api/v1/admin/users", helper.token)).toBe(403);
    await expectProblem(await adminUpdate(adminToken, adminId, { roles: [] }), 409, "LAST_SERVER_ADMIN");

    const audit = await must("/api/v1/admin/audit?limit=200", { token: adminToken }, 200);
    const actions = audit.items.filter((item: { target: { id: string } }) => item.target.id === helper.id).map((item: { action: string }) => item.action);
    expect(actions).toEqual(expect.arrayContaining(["user.server_admin_granted", "user.server_admin_revoked"]));
  });

  it("two admins demoting each other at once leave exactly one server admin", async () => {
    const other = await createAccount(server);
    await must(`/api/v1/admin/users/${other.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    const [first, second] = await Promise.all([adminUpdate(adminToken, other.id, { roles: [] }), adminUpdate(other.token, adminId, { roles: [] })]);
    // The second is no longer an admin when its change is made, however far its request had come.
    expect([first.status, second.status].sort()).toEqual([200, 403]);
    const admins = (await must("/api/v1/admin/users?limit=200", { token: first.status === 200 ? adminToken : other.token }, 200)).items.filter(
      (item: { roles: string[] }) => item.roles.includes("serverAdmin"),
    );
    expect(admins).toHaveLength(1);
    if (admins[0].id !== adminId) await must(`/api/v1/admin/users/${adminId}`, { method: "PUT", token: other.token, json: { roles: ["serverAdmin"] } }, 200);
  });

  it("refuses a change by an admin whose role was taken away while the request waited, and changes nothing", async () => {
    const [demoted, target] = [await createAccount(server), await createAccount(server)];
    await must(`/api/v1/admin/users/${demoted.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    // Every change of an account waits for the server admins' lock: the demotion queues first, then
    // the demoted admin's own change, authenticated while the role was still there.
    const hold = await holdRows(server.databaseUrl, "select pg_advisory_xact_lock(hashtext('meridian:server-admins'))");
    try {
      const demotion = adminUpdate(adminToken, demoted.id, { roles: [] });
      await until("the demotion to wait for the lock", async () => (await hold.waiters()) === 1);
      const grant = adminUpdate(demoted.token, target.id, { roles: ["serverAdmin"] });
      await until("the demoted admin's change to wait behind it", async () => (await hold.waiters()) === 2);
      await hold.release();
      expect((await demotion).status).toBe(200);
      await expectProblem(await grant, 403, "FORBIDDEN");
    } finally {
      await hold.release();
    }
    expect((await must(`/api/v1/admin/users?q=${encodeURIComponent(target.email)}`, { token: adminToken }, 200)).items[0].roles).toEqual([]);
  });

  it("refuses bad input, unknown users, and callers who are not server admins", async () => {
    const user = await createAccount(server);
    for (const json of [{ roles: ["superuser"] }, { disabled: "yes" }, { email: "not an address" }, { passwordHash: "x" }, []])
      await expectProblem(await adminUpdate(adminToken, user.id, json), 400, "VALIDATION_FAILED");
    await expectProblem(await adminUpdate(adminToken, "usr_nobody", { disabled: true }), 404, "NOT_FOUND");
    await expectProblem(await adminUpdate(user.token, user.id, { roles: ["serverAdmin"] }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/api/v1/admin/users/${user.id}`, { method: "PUT", json: { disabled: true } }), 401, "UNAUTHENTICATED");
  });

  it("tRPC admin.users and admin.updateUser answer like REST and refuse non-admins", async () => {
    const user = await createAccount(server);
    const page = await trpcData<{ items: Array<{ id: string }> }>(
      await server.request(`/trpc/admin.users?input=${encodeURIComponent(JSON.stringify({ q: user.email }))}`, { token: adminToken }),
    );
    expect(page.items.map((item) => item.id)).toEqual([user.id]);
    const updated = await server.request("/trpc/admin.updateUser", { method: "POST", token: adminToken, json: { id: user.id, disabled: true } });
    expect(await trpcData(updated)).toMatchObject({ id: user.id, disabled: true });
    const refused = await server.request("/trpc/admin.users", { token: (await createAccount(server)).token });
    expect(await trpcErrorCode(refused)).toBe("FORBIDDEN");
  });
});
