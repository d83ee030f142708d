import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, loginSession, roomyLimits } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { startSmtpCapture } from "../support/smtp-capture";
import { holdRows } from "../support/table-hold";
import type { TestServer } from "../support/test-server";

/** A server admin corrects an account's name and email (`PUT /api/v1/admin/users/{id}` with `name`, `email`; tRPC `admin.updateUser`). */
const ADMIN = { email: "user-edit-admin@example.com", password: "user edit admin password" };
const NOTICE_SUBJECT = "The email address of your Meridian account was changed";
const WELCOME_SUBJECT = "You now sign in to Meridian with this address";
let server: TestServer;
let adminToken: string;
let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { ...roomyLimits, MERIDIAN_ROLE: "all", SMTP_URL: smtp.url }));
});
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
});
const { must } = jsonApi(() => server);

const tag = () => randomBytes(4).toString("hex");
const adminUpdate = (token: string | undefined, userId: string, json: unknown) =>
  server.request(`/api/v1/admin/users/${userId}`, { method: "PUT", token, json });
const login = (email: string, password: string) => server.request("/api/v1/auth/login", { method: "POST", json: { email, password } });
/** The outbox rows addressed to `to` (any case) of `kind`: written in the change's transaction, so there as soon as it answered. */
const outboxTo = async (to: string, kind = "email_changed") =>
  await server.server.runtime.deps.db.execute<{ subject: string }>(
    sql`select doc->>'subject' as subject from email_outbox where lower(doc->>'to') = ${to.toLowerCase()} and doc->>'kind' = ${kind}`,
  );
/** The account as the administration list shows it. */
const listed = async (email: string) => (await must(`/api/v1/admin/users?q=${encodeURIComponent(email)}`, { token: adminToken }, 200)).items;

describe("a server admin corrects an account's name and email", () => {
  it("changes both: the new email signs in, the old one does not, sessions and keys stay, both addresses are told, the old one's reset link dies", async () => {
    const oldEmail = `before-${tag()}@example.com`;
    const user = await createAccount(server, { email: oldEmail, name: "Misspeled Name" });
    const key = await createApiKey(server, user.token);
    const newEmail = `After-${tag()}@Example.org`;
    // A reset link mailed to the old address before the change.
    expect((await server.request("/api/v1/auth/password-reset", { method: "POST", json: { email: oldEmail } })).status).toBe(202);
    const resets = (all: typeof smtp.messages) => all.filter((mail) => mail.to.includes(oldEmail) && mail.subject === "Reset your Meridian password");
    const [reset] = resets(await smtp.waitFor((all) => resets(all).length > 0));
    const resetToken = decodeURIComponent(/reset-password\?token=(\S+)/.exec(reset!.text ?? "")![1]!);

    const updated = await must(
      `/api/v1/admin/users/${user.id}`,
      { method: "PUT", token: adminToken, json: { name: "  Corrected Name ", email: newEmail } },
      200,
    );
    expect(updated).toMatchObject({ id: user.id, name: "Corrected Name", email: newEmail, disabled: false, roles: [] });

    // The new address signs in, in any case; the old one is an unknown address now.
    await loginSession(server, { email: newEmail.toLowerCase(), password: user.password });
    await expectProblem(await login(oldEmail, user.password), 401, "INVALID_CREDENTIALS");
    // Not a security reset: the session and the key made before the change still work and see it.
    for (const token of [user.token, key.key])
      expect(await must("/api/v1/auth/me", { token }, 200)).toMatchObject({ id: user.id, name: "Corrected Name", email: newEmail });
    expect(await listed(newEmail)).toMatchObject([{ id: user.id, name: "Corrected Name", email: newEmail }]);
    expect(await listed(oldEmail)).toEqual([]);

    // The old address learns of it, with the new one masked; the new one is told it signs in there now.
    const notices = (all: typeof smtp.messages) => all.filter((mail) => mail.to.includes(oldEmail) && mail.subject === NOTICE_SUBJECT);
    const [notice] = notices(await smtp.waitFor((all) => notices(all).length > 0));
    expect(notice!.text).toContain("A server administrator changed the email address");
    expect(notice!.text).toContain("A***@Example.org");
    expect(notice!.text).not.toContain(newEmail);
    expect(await outboxTo(newEmail)).toHaveLength(0);
    const welcomes = (all: typeof smtp.messages) =>
      all.filter((mail) => mail.to.some((to) => to.toLowerCase() === newEmail.toLowerCase()) && mail.subject === WELCOME_SUBJECT);
    const [welcome] = welcomes(await smtp.waitFor((all) => welcomes(all).length > 0));
    expect(welcome!.text).toContain("Hello Corrected Name");
    expect(welcome!.text).toContain("A server administrator made this address the sign-in address of your Meridian account");
    expect(welcome!.text).not.toContain(oldEmail);
    expect(await outboxTo(newEmail, "email_set")).toHaveLength(1);
    // Whoever reads the old mailbox cannot take the account back with the link sent there.
    const confirm = await server.request("/api/v1/auth/password-reset/confirm", {
      method: "POST",
      json: { token: resetToken, newPassword: "taken back password" },
    });
    await expectProblem(confirm, 400, "INVALID_TOKEN");
    await loginSession(server, { email: newEmail, password: user.password });

    const audit = await must(`/api/v1/admin/audit?targetId=${user.id}`, { token: adminToken }, 200);
    expect(audit.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "user.renamed", before: { name: "Misspeled Name" }, after: { name: "Corrected Name" } }),
        expect.objectContaining({ action: "user.email_changed", before: { email: oldEmail }, after: { email: newEmail } }),
      ]),
    );
  });

  it("a name alone, or the same email in another case, writes no notice; the same values change nothing", async () => {
    const email = `case-${tag()}@example.com`;
    const user = await createAccount(server, { email });
    await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { name: "Only Renamed" } }, 200);
    expect(await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { email: email.toUpperCase() } }, 200)).toMatchObject({
      name: "Only Renamed",
      email: email.toUpperCase(),
    });
    expect(await outboxTo(email)).toHaveLength(0);
    expect(await outboxTo(email, "email_set")).toHaveLength(0);
    await loginSession(server, { email, password: user.password });
    await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { name: "Only Renamed", email: email.toUpperCase() } }, 200);
    const actions = (await must(`/api/v1/admin/audit?targetId=${user.id}`, { token: adminToken }, 200)).items.map((item: { action: string }) => item.action);
    expect(actions.sort()).toEqual(["user.email_changed", "user.renamed"]);
  });

  it("refuses a bad email or a blank name with 400 naming the field, another account's email in any case with 409, an unknown user with 404", async () => {
    const user = await createAccount(server, { name: "Stays Put" });
    const other = await createAccount(server);
    for (const email of ["not an address", "two@@example.com", "", `${"x".repeat(250)}@example.com`, "a\u0000@example.com"]) {
      const problem = await expectProblem(await adminUpdate(adminToken, user.id, { email }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toEqual(["email"]);
    }
    for (const name of ["", "   ", "x".repeat(101), "tab\there"]) {
      const problem = await expectProblem(await adminUpdate(adminToken, user.id, { name }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toEqual(["name"]);
    }
    for (const email of [other.email, other.email.toUpperCase(), ` ${other.email} `, ADMIN.email]) {
      const problem = await expectProblem(await adminUpdate(adminToken, user.id, { name: "Not Applied", email }), 409, "EMAIL_TAKEN");
      expect(problem.errors).toEqual([{ path: "email", message: expect.stringMatching(/\.$/) }]);
    }
    await expectProblem(await adminUpdate(adminToken, "usr_nobody", { name: "Anyone" }), 404, "NOT_FOUND");
    // Nothing of a refused change was written.
    expect(await listed(user.email)).toMatchObject([{ id: user.id, name: "Stays Put", email: user.email }]);
    expect(await outboxTo(user.email)).toHaveLength(0);
  });

  it("refuses an email another account takes while the change is under way with 409 EMAIL_TAKEN (the unique index decides)", async () => {
    const user = await createAccount(server);
    const contested = `contested-${tag()}@example.com`;
    // Another account with the address, not yet committed: the change does not see it, and waits at the index.
    const hold = await holdRows(
      server.databaseUrl,
      `insert into users (id, doc, email_lower) select 'usr_race_${tag()}', doc || '{"email": "${contested}"}', '${contested}' ` +
        `from users where id = '${user.id}'`,
    );
    let answer: Promise<Response> | undefined;
    try {
      answer = adminUpdate(adminToken, user.id, { email: contested });
      await expect.poll(() => hold.waiting(), { timeout: 15_000 }).toBe(true);
      await hold.commit();
    } finally {
      await hold.release();
    }
    await expectProblem(await answer, 409, "EMAIL_TAKEN");
    expect(await listed(user.email)).toMatchObject([{ id: user.id, email: user.email }]);
    expect(await outboxTo(user.email)).toHaveLength(0);
  });

  it("answers 401 to a caller without credentials before it looks at the input, and 403 to one who is not a server admin", async () => {
    const user = await createAccount(server);
    for (const json of [{ name: "Valid Name" }, { email: "not an address", name: "" }, { unknownField: true }])
      await expectProblem(await adminUpdate(undefined, user.id, json), 401, "UNAUTHENTICATED");
    await expectProblem(await adminUpdate(undefined, "usr_nobody", { name: "" }), 401, "UNAUTHENTICATED");
    const malformed = await server.request(`/api/v1/admin/users/${user.id}`, {
      method: "PUT",
      body: '{"name": ',
      headers: { "content-type": "application/json" },
    });
    await expectProblem(malformed, 401, "UNAUTHENTICATED");
    // Anyone else is refused before the input too, their own account included.
    for (const json of [{ name: "Hijacked" }, { email: "mine-now@example.com" }, { email: "not an address" }]) {
      await expectProblem(await adminUpdate(user.token, user.id, json), 403, "FORBIDDEN");
      await expectProblem(await adminUpdate(user.token, (await createAccount(server)).id, json), 403, "FORBIDDEN");
    }
    expect(await must("/api/v1/auth/me", { token: user.token }, 200)).toMatchObject({ email: user.email });
  });

  it("tRPC admin.updateUser corrects the same way and refuses the same things", async () => {
    const user = await createAccount(server);
    const other = await createAccount(server);
    const newEmail = `trpc-${tag()}@example.com`;
    const call = (token: string | undefined, json: unknown) => server.request("/trpc/admin.updateUser", { method: "POST", token, json });
    const updated = await trpcData(await call(adminToken, { id: user.id, name: "Via tRPC", email: newEmail }));
    expect(updated).toMatchObject({ id: user.id, name: "Via tRPC", email: newEmail });
    expect(await must("/api/v1/auth/me", { token: user.token }, 200)).toMatchObject({ name: "Via tRPC", email: newEmail });
    const notices = (all: typeof smtp.messages) => all.filter((mail) => mail.to.includes(user.email) && mail.subject === NOTICE_SUBJECT);
    await smtp.waitFor((all) => notices(all).length > 0);

    const refusal = async (response: Response) => ((await response.json()) as { error: { data: { code: string; errors: unknown } } }).error.data;
    expect(await refusal(await call(adminToken, { id: user.id, email: other.email.toUpperCase() }))).toMatchObject({
      code: "EMAIL_TAKEN",
      errors: [{ path: "email", message: expect.any(String) }],
      httpStatus: 409,
      requestId: expect.any(String),
    });
    expect(await refusal(await call(adminToken, { id: user.id, email: "nope" }))).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "email" }] });
    expect(await refusal(await call(adminToken, { id: user.id, name: " " }))).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "name" }] });
    expect(await refusal(await call(undefined, { id: user.id, email: "nope" }))).toMatchObject({ code: "UNAUTHENTICATED" });
    expect(await refusal(await call(other.token, { id: user.id, name: "Hijacked" }))).toMatchObject({ code: "FORBIDDEN" });
  });
});
