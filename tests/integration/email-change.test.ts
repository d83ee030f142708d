import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * A user changes their own sign-in address (`POST /api/v1/user/email`, confirmed by the link mailed to the new
 * address at `POST /api/v1/user/email/confirm`; `GET` and `DELETE /api/v1/user/email` show and cancel a pending one).
 */
const ADMIN = { email: "email-change-admin@example.com", password: "email change admin password" };
const CONFIRM_SUBJECT = "Confirm your new Meridian email address";
const HEADS_UP_SUBJECT = "Someone asked to change the email address of your Meridian account";
const CHANGED_SUBJECT = "The email address of your Meridian account was changed";
let server: TestServer;
let adminToken: string;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, {
    ...roomyLimits,
    LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "1000",
    PASSWORD_RESETS_PER_IP_PER_HOUR: "1000",
    MERIDIAN_ROLE: "all",
    SMTP_URL: smtp.url,
  }));
});
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
});
const { must } = jsonApi(() => server);

const tag = () => randomBytes(4).toString("hex");
const fresh = (label: string) => `${label}-${tag()}@example.org`;
const requestChange = (token: string | undefined, json: unknown) => server.request("/api/v1/user/email", { method: "POST", token, json });
const confirm = (token: string) => server.request("/api/v1/user/email/confirm", { method: "POST", json: { token } });
const login = (email: string, password: string) => server.request("/api/v1/auth/login", { method: "POST", json: { email, password } });
const db = () => server.server.runtime.deps.db;

const mailsTo = (all: CapturedMail[], to: string, subject: string) => all.filter((mail) => mail.to.includes(to.toLowerCase()) && mail.subject === subject);
/** Waits for the `count`-th mail of `subject` to `to` and answers it. */
async function mailTo(to: string, subject: string, count = 1) {
  const all = await smtp.waitFor((messages) => mailsTo(messages, to, subject).length >= count);
  return mailsTo(all, to, subject)[count - 1]!;
}
/** The token of the `count`-th confirmation link mailed to `to`. */
async function linkTokenFor(to: string, count = 1) {
  const mail = await mailTo(to, CONFIRM_SUBJECT, count);
  return decodeURIComponent(/\/app\/confirm-email\?token=(\S+)/.exec(mail.text ?? "")![1]!);
}
/** Asks for a change to `email` with the right password and expects 202. */
async function asked(account: Account, email: string) {
  const response = await requestChange(account.token, { email, currentPassword: account.password });
  expect(response.status, await response.clone().text()).toBe(202);
}

describe("changing one's own email address", () => {
  it("mails a link to the new address and a heads-up to the old one; the link works once and the new address signs in", async () => {
    const account = await createAccount(server, { email: fresh("before") });
    const key = await createApiKey(server, account.token);
    const newEmail = fresh("after");
    // A reset link mailed to the old address before the change.
    expect((await server.request("/api/v1/auth/password-reset", { method: "POST", json: { email: account.email } })).status).toBe(202);
    const reset = await mailTo(account.email, "Reset your Meridian password");
    const resetToken = decodeURIComponent(/reset-password\?token=(\S+)/.exec(reset.text ?? "")![1]!);

    await asked(account, newEmail);
    const pending = await must("/api/v1/user/email", { token: account.token }, 200);
    expect(pending).toEqual({ pendingEmail: newEmail, expiresAt: expect.any(String) });
    expect(new Date(pending.expiresAt).getTime() - Date.now()).toBeGreaterThan(55 * 60_000);
    // Nothing changes yet: the old address still signs in.
    expect(await must("/api/v1/auth/me", { token: account.token }, 200)).toMatchObject({ email: account.email });
    const headsUp = await mailTo(account.email, HEADS_UP_SUBJECT);
    expect(headsUp.text).toContain("Nothing changes unless the link sent to the new address is opened");
    expect(headsUp.text).toContain("a***@example.org");
    expect(headsUp.text).not.toContain(newEmail);
    const token = await linkTokenFor(newEmail);

    // Signed in as nobody: the token is the credential.
    const confirmed = await confirm(token);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ id: account.id, email: newEmail });
    await expectProblem(await confirm(token), 400, "INVALID_TOKEN");

    await expectProblem(await login(account.email, account.password), 401, "INVALID_CREDENTIALS");
    await loginSession(server, { email: newEmail.toUpperCase(), password: account.password });
    // Sessions and keys made before the change still work and see it; nothing is pending any more.
    for (const credential of [account.token, key.key]) expect(await must("/api/v1/auth/me", { token: credential }, 200)).toMatchObject({ email: newEmail });
    expect(await must("/api/v1/user/email", { token: account.token }, 200)).toEqual({ pendingEmail: null, expiresAt: null });

    const notice = await mailTo(account.email, CHANGED_SUBJECT);
    expect(notice.text).toContain("a***@example.org");
    expect(notice.text).not.toContain(newEmail);
    // Whoever reads the old mailbox cannot take the account back with the reset link sent there.
    const takeBack = await server.request("/api/v1/auth/password-reset/confirm", { method: "POST", json: { token: resetToken, newPassword: "taken back pw" } });
    await expectProblem(takeBack, 400, "INVALID_TOKEN");

    const audit = await must(`/api/v1/admin/audit?targetId=${account.id}`, { token: adminToken }, 200);
    expect(audit.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "user.email_changed", actorId: account.id, before: { email: account.email }, after: { email: newEmail } }),
      ]),
    );
  });

  it("a newer request replaces the older: only the newest link works", async () => {
    const account = await createAccount(server);
    const first = fresh("first");
    const second = fresh("second");
    await asked(account, first);
    const firstToken = await linkTokenFor(first);
    await asked(account, second);
    const secondToken = await linkTokenFor(second);
    expect(await must("/api/v1/user/email", { token: account.token }, 200)).toMatchObject({ pendingEmail: second });
    await expectProblem(await confirm(firstToken), 400, "INVALID_TOKEN");
    expect(await must("/api/v1/auth/me", { token: account.token }, 200)).toMatchObject({ email: account.email });
    expect((await confirm(secondToken)).status).toBe(200);
    expect(await must("/api/v1/auth/me", { token: account.token }, 200)).toMatchObject({ email: second });
    const [rows] = await db().execute<{ count: number }>(sql`select count(*)::int as count from email_changes where user_id = ${account.id}`);
    expect(rows!.count).toBe(0);
  });

  it("cancelling makes the link useless; an expired link is refused and no longer shown as pending", async () => {
    const account = await createAccount(server);
    const cancelled = fresh("cancelled");
    await asked(account, cancelled);
    const cancelledToken = await linkTokenFor(cancelled);
    expect((await server.request("/api/v1/user/email", { method: "DELETE", token: account.token })).status).toBe(204);
    expect((await server.request("/api/v1/user/email", { method: "DELETE", token: account.token })).status).toBe(204);
    expect(await must("/api/v1/user/email", { token: account.token }, 200)).toEqual({ pendingEmail: null, expiresAt: null });
    await expectProblem(await confirm(cancelledToken), 400, "INVALID_TOKEN");

    const late = fresh("late");
    await asked(account, late);
    const lateToken = await linkTokenFor(late);
    await db().execute(
      sql`update email_changes set doc = jsonb_set(doc, '{expiresAt}', to_jsonb((now() - interval '1 second')::text)) where user_id = ${account.id}`,
    );
    await expectProblem(await confirm(lateToken), 400, "INVALID_TOKEN");
    expect(await must("/api/v1/user/email", { token: account.token }, 200)).toEqual({ pendingEmail: null, expiresAt: null });
    expect(await must("/api/v1/auth/me", { token: account.token }, 200)).toMatchObject({ email: account.email });
    for (const token of ["mec_unknown", "x".repeat(200)]) await expectProblem(await confirm(token), 400, "INVALID_TOKEN");
    for (const json of [{}, { token: "" }, { token: "a\u0000b" }, { token: "x".repeat(201) }, { token: 5 }, { token: "t", extra: 1 }]) {
      await expectProblem(await server.request("/api/v1/user/email/confirm", { method: "POST", json }), 400, "VALIDATION_FAILED");
    }
  });

  it("refuses a wrong password with 403, another account's address with 409, the same address with 400, bad input with 400", async () => {
    const account = await createAccount(server);
    const other = await createAccount(server);
    const wrong = await expectProblem(
      await requestChange(account.token, { email: fresh("wrong"), currentPassword: "not the password" }),
      403,
      "INVALID_CREDENTIALS",
    );
    expect(wrong.errors?.map((error) => error.path)).toEqual(["currentPassword"]);
    for (const email of [other.email, other.email.toUpperCase(), ` ${other.email} `, ADMIN.email]) {
      const taken = await expectProblem(await requestChange(account.token, { email, currentPassword: account.password }), 409, "EMAIL_TAKEN");
      expect(taken.errors).toEqual([{ path: "email", message: expect.stringMatching(/\.$/) }]);
    }
    for (const email of [account.email, account.email.toUpperCase()]) {
      const same = await expectProblem(await requestChange(account.token, { email, currentPassword: account.password }), 400, "VALIDATION_FAILED");
      expect(same.errors).toEqual([{ path: "email", message: "This is already your email address." }]);
    }
    for (const email of ["not an address", "", `${"x".repeat(250)}@example.com`, 7]) {
      const problem = await expectProblem(await requestChange(account.token, { email, currentPassword: account.password }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toEqual(["email"]);
    }
    const missing = await expectProblem(await requestChange(account.token, { email: fresh("nopw") }), 400, "VALIDATION_FAILED");
    expect(missing.errors?.map((error) => error.path)).toEqual(["currentPassword"]);
    // Nothing was asked for, and nothing was mailed.
    expect(await must("/api/v1/user/email", { token: account.token }, 200)).toEqual({ pendingEmail: null, expiresAt: null });
    expect(smtp.messages.filter((mail) => mail.to.includes(account.email))).toEqual([]);
  });

  it("refuses at confirmation an address another account took meanwhile with 409, the unique index deciding a race", async () => {
    const account = await createAccount(server);
    const wanted = fresh("wanted");
    await asked(account, wanted);
    const token = await linkTokenFor(wanted);
    // Another account with the address, not yet committed: the confirmation does not see it, and waits at the index.
    const hold = await holdRows(
      server.databaseUrl,
      `insert into users (id, doc, email_lower) select 'usr_race_${tag()}', doc || '{"email": "${wanted}"}', '${wanted}' from users where id = '${account.id}'`,
    );
    let answer: Promise<Response> | undefined;
    try {
      answer = confirm(token);
      await expect.poll(() => hold.waiting(), { timeout: 15_000 }).toBe(true);
      await hold.commit();
    } finally {
      await hold.release();
    }
    await expectProblem(await answer, 409, "EMAIL_TAKEN");
    await expectProblem(await confirm(token), 409, "EMAIL_TAKEN");
    expect(await must("/api/v1/auth/me", { token: account.token }, 200)).toMatchObject({ email: account.email });
  });

  it("limits requests per account as reset requests are, refused addresses counted too", async () => {
    const account = await createAccount(server);
    const other = await createAccount(server);
    // PASSWORD_RESETS_PER_EMAIL_PER_HOUR is 5 by default; a taken address tells something, so it counts as a request.
    for (let request = 0; request < 4; request += 1) await asked(account, fresh(`limit${request}`));
    await expectProblem(await requestChange(account.token, { email: other.email, currentPassword: account.password }), 409, "EMAIL_TAKEN");
    const refused = await requestChange(account.token, { email: fresh("limit5"), currentPassword: account.password });
    await expectProblem(refused, 429, "RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers 401 without credentials before looking at the input", async () => {
    for (const json of [{ email: fresh("anon"), currentPassword: "whatever pw" }, { email: "nope" }, { unknown: true }]) {
      await expectProblem(await requestChange(undefined, json), 401, "UNAUTHENTICATED");
    }
    const malformed = await server.request("/api/v1/user/email", { method: "POST", body: '{"email": ', headers: { "content-type": "application/json" } });
    await expectProblem(malformed, 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/user/email"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/api/v1/user/email", { method: "DELETE" }), 401, "UNAUTHENTICATED");
  });

  it("works over tRPC: user.requestEmailChange, user.pendingEmailChange, user.cancelEmailChange and auth.confirmEmailChange", async () => {
    const account = await createAccount(server);
    const other = await createAccount(server);
    const call = (procedure: string, token: string | undefined, json?: unknown) =>
      server.request(`/trpc/${procedure}`, { method: json === undefined ? "GET" : "POST", token, json });
    const refusal = async (response: Response) => ((await response.json()) as { error: { data: { code: string; httpStatus: number } } }).error.data;
    const newEmail = fresh("trpc");
    expect(await refusal(await call("user.requestEmailChange", undefined, { email: "nope" }))).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(await refusal(await call("user.requestEmailChange", account.token, { email: other.email, currentPassword: account.password }))).toMatchObject({
      code: "EMAIL_TAKEN",
      httpStatus: 409,
    });
    expect(await refusal(await call("user.requestEmailChange", account.token, { email: newEmail, currentPassword: "wrong password" }))).toMatchObject({
      code: "INVALID_CREDENTIALS",
      httpStatus: 403,
    });
    await trpcData(await call("user.requestEmailChange", account.token, { email: newEmail, currentPassword: account.password }));
    expect(await trpcData(await call("user.pendingEmailChange", account.token))).toMatchObject({ pendingEmail: newEmail });
    await trpcData(await call("user.cancelEmailChange", account.token, {}));
    expect(await trpcData(await call("user.pendingEmailChange", account.token))).toEqual({ pendingEmail: null, expiresAt: null });
    expect(await refusal(await call("auth.confirmEmailChange", undefined, { token: await linkTokenFor(newEmail) }))).toMatchObject({ code: "INVALID_TOKEN" });

    await trpcData(await call("user.requestEmailChange", account.token, { email: newEmail, currentPassword: account.password }));
    const confirmed = await trpcData(await call("auth.confirmEmailChange", undefined, { token: await linkTokenFor(newEmail, 2) }));
    expect(confirmed).toMatchObject({ id: account.id, email: newEmail });
  });

  it("refuses the link of an account disabled since it was mailed, and changes nothing; enabled again, the link works", async () => {
    const account = await createAccount(server);
    const newEmail = fresh("disabled");
    await asked(account, newEmail);
    const token = await linkTokenFor(newEmail);
    const setDisabled = (disabled: boolean) => must(`/api/v1/admin/users/${account.id}`, { method: "PUT", token: adminToken, json: { disabled } }, 200);
    await setDisabled(true);
    await expectProblem(await confirm(token), 400, "INVALID_TOKEN");
    const listed = async (email: string) => (await must(`/api/v1/admin/users?q=${encodeURIComponent(email)}`, { token: adminToken }, 200)).items;
    expect(await listed(account.email)).toMatchObject([{ id: account.id, email: account.email, disabled: true }]);
    expect(await listed(newEmail)).toEqual([]);
    expect(mailsTo(smtp.messages, account.email, CHANGED_SUBJECT)).toHaveLength(0);
    // The refusal spent nothing: the link still stands for the account once it may sign in again.
    await setDisabled(false);
    expect((await confirm(token)).status).toBe(200);
    expect(await listed(newEmail)).toMatchObject([{ id: account.id, email: newEmail }]);
  });

  it("removes password reset and email change links past their hour in the hourly prune_expired_links job, and leaves live ones working", async () => {
    const stale = await createAccount(server);
    const live = await createAccount(server);
    const liveEmail = fresh("live");
    for (const account of [stale, live]) {
      await asked(account, account === live ? liveEmail : fresh("stale"));
      const reset = await server.request("/api/v1/auth/password-reset", { method: "POST", json: { email: account.email } });
      expect(reset.status).toBe(202);
    }
    const rowsOf = async (userId: string) => {
      const [row] = await db().execute<{ resets: number; changes: number }>(
        sql`select (select count(*)::int from password_resets where user_id = ${userId}) as resets,
                   (select count(*)::int from email_changes where user_id = ${userId}) as changes`,
      );
      return row!;
    };
    await until("both links of each account to be stored", async () => {
      const [a, b] = [await rowsOf(stale.id), await rowsOf(live.id)];
      return a.resets === 1 && a.changes === 1 && b.resets === 1 && b.changes === 1;
    });
    for (const table of ["password_resets", "email_changes"]) {
      await db().execute(
        sql`update ${sql.identifier(table)} set doc = jsonb_set(doc, '{expiresAt}', to_jsonb((now() - interval '1 second')::text)) where user_id = ${stale.id}`,
      );
    }

    await db().execute(sql`select graphile_worker.add_job('prune_expired_links', '{}'::json)`);
    await until("the expired links to be removed", async () => {
      const rows = await rowsOf(stale.id);
      return rows.resets === 0 && rows.changes === 0;
    });
    expect(await rowsOf(live.id)).toEqual({ resets: 1, changes: 1 });
    expect((await confirm(await linkTokenFor(liveEmail))).status).toBe(200);
  });
});
