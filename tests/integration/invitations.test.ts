import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { startSmtpCapture, type CapturedMail } from "../support/smtp-capture";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { copyMembers } from "../support/row-copies";
import { holdRows, holdTable, lockWaiters, queuedBehindHold } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * Invitations (api-contract: Invitations): an emailed single-use link valid seven days, replaced by
 * a newer one, revocable, accepted only by the invited address, also by someone who signs up
 * through it; for organizations, observatories and projects alike, each change on record.
 */

const ADMIN = { email: "invitations-admin@example.com", password: "invitations admin password" };
const WEEK_MS = 7 * 24 * 3600_000;
const SCOPE_LIMIT = 8;

let server: TestServer;
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let clock: TestClock;
let admin: Account;
const { call, must, createOrganization, createObservatory, addOrganizationMember } = jsonApi(() => server);

beforeAll(async () => {
  capture = await startSmtpCapture();
  server = await startTestServer({
    ...roomyLimits,
    SMTP_URL: capture.url,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    INVITATIONS_PER_SCOPE_PER_HOUR: String(SCOPE_LIMIT),
  });
  clock = controlServerClock(server, Date.now());
  const login = await must("/api/v1/auth/login", { method: "POST", json: ADMIN }, 200);
  admin = { ...ADMIN, id: login.user.id, token: login.token };
});
afterAll(async () => {
  await server?.stop();
  await capture?.stop();
});

const freshEmail = (label: string) => `${label}-${randomBytes(4).toString("hex")}@example.com`;

/** The token of the newest invitation email to `to`, from its `/app/invitations/{token}` link, once it has arrived. */
async function invitationToken(to: string, after = 0): Promise<string> {
  const mine = (all: CapturedMail[]) => all.filter((mail) => mail.to.some((address) => address.toLowerCase() === to.toLowerCase()));
  await capture.waitFor((all) => mine(all).length > after);
  const mail = mine(capture.messages).at(-1)!;
  const link = /https?:\/\/\S+\/app\/invitations\/(\S+)/.exec(mail.text ?? "");
  expect(link, `an invitation link in: ${mail.text}`).not.toBeNull();
  return decodeURIComponent(link![1]!);
}
const mailsTo = (to: string) => capture.messages.filter((mail) => mail.to.some((address) => address.toLowerCase() === to.toLowerCase())).length;

const invite = (as: Account, base: string, json: Record<string, unknown>) => call(`${base}/invitations`, { method: "POST", token: as.token, json });
const accept = (as: Account, token: string) => call("/api/v1/invitations/accept", { method: "POST", token: as.token, json: { token } });
const auditOf = async (scopeKind: string, scopeId: string) =>
  (await must(`/api/v1/admin/audit?scopeKind=${scopeKind}&scopeId=${scopeId}&limit=200`, { token: admin.token }, 200)).items as Array<{
    action: string;
    actorId: string | null;
    target: { kind: string; name: string | null };
  }>;

describe("organization invitations", () => {
  it("invites an address without an account; whoever signs up with it through the link joins with the permissions sent, once", async () => {
    const owner = await createAccount(server, { name: "Olive Owner" });
    const organization = await createOrganization(owner);
    const email = freshEmail("Newcomer");

    const sent = await invite(owner, `/organizations/${organization.id}`, { email, permissions: { can_manage_projects: true } });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      id: expect.any(String),
      email,
      permissions: { can_manage_members: false, can_manage_projects: true, can_manage_observatories: false },
      expired: false,
      invitedBy: { id: owner.id },
    });
    expect(new Date(sent.body.expiresAt).getTime() - new Date(sent.body.createdAt).getTime()).toBeGreaterThanOrEqual(WEEK_MS - 60_000);
    expect((await call(`/organizations/${organization.id}/invitations`, { token: owner.token })).body.items).toEqual([sent.body]);

    const token = await invitationToken(email);
    // The link says, before anyone signs in, whom it invites to what.
    const preview = await call(`/api/v1/invitations/${encodeURIComponent(token)}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      kind: "organization",
      id: organization.id,
      name: organization.name,
      email,
      invitedBy: "Olive Owner",
      expiresAt: sent.body.expiresAt,
      accountExists: false,
    });

    const newcomer = await createAccount(server, { email: email.toUpperCase(), name: "Newcomer" });
    const accepted = await accept(newcomer, token);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ kind: "organization", id: organization.id });
    const members = (await must(`/organizations/${organization.id}/members`, { token: owner.token }, 200)).items;
    expect(members.find((member: { userId: string }) => member.userId === newcomer.id)).toMatchObject({
      permissions: { can_manage_projects: true, can_manage_members: false },
    });
    expect((await call(`/organizations/${organization.id}/invitations`, { token: owner.token })).body.items).toEqual([]);

    // The token works once.
    await expectProblem(
      await server.request("/api/v1/invitations/accept", { method: "POST", token: newcomer.token, json: { token } }),
      410,
      "INVITATION_EXPIRED",
    );
    expect((await call(`/api/v1/invitations/${encodeURIComponent(token)}`)).status).toBe(410);

    const actions = (await auditOf("organization", organization.id)).map((entry) => [entry.action, entry.actorId, entry.target.name]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ["organization.invitation_sent", owner.id, email],
        ["organization.invitation_accepted", newcomer.id, email],
      ]),
    );
  });

  it("the email says joining takes a press of Join on the invitation page, after signing up or signing in", async () => {
    const owner = await createAccount(server, { name: "Wendy Wording" });
    const organization = await createOrganization(owner);
    const newcomer = freshEmail("wording-new");
    const existing = await createAccount(server, { email: freshEmail("wording-old") });
    await invite(owner, `/organizations/${organization.id}`, { email: newcomer });
    await invite(owner, `/organizations/${organization.id}`, { email: existing.email });
    await invitationToken(newcomer);
    await invitationToken(existing.email);
    const textTo = (to: string) => capture.messages.findLast((mail) => mail.to.some((address) => address.toLowerCase() === to.toLowerCase()))!.text ?? "";

    // Signing up through the link does not join by itself (the contract: the new account joins on acceptance).
    expect(textTo(newcomer)).toContain(
      'create your Meridian account with this email address. You are then back on the invitation: press "Join the organization"',
    );
    expect(textTo(newcomer)).not.toMatch(/as soon as|automatically/);
    expect(textTo(existing.email)).toContain('sign in with this email address and press "Join the organization" to accept.');
  });

  it("refuses an account with another address (403) and leaves the link working for the invited one", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const invited = await createAccount(server);
    const someoneElse = await createAccount(server);
    expect((await invite(owner, `/organizations/${organization.id}`, { email: invited.email })).status).toBe(201);
    const token = await invitationToken(invited.email);
    expect((await call(`/api/v1/invitations/${encodeURIComponent(token)}`)).body.accountExists).toBe(true);

    const refused = await accept(someoneElse, token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("INVITATION_EMAIL_MISMATCH");
    expect(refused.body.detail ?? refused.body.title).toBeTruthy();
    expect((await accept(invited, token)).status).toBe(200);
  });

  it("a second invitation to the same address replaces the first, whose link stops working: that is a resend", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("twice");
    const first = await invite(owner, `/organizations/${organization.id}`, { email });
    const firstToken = await invitationToken(email);
    const second = await invite(owner, `/organizations/${organization.id}`, { email: email.toUpperCase(), permissions: { can_manage_storage: true } });
    expect(second.status).toBe(201);
    const secondToken = await invitationToken(email, 1);
    expect(secondToken).not.toBe(firstToken);
    const listed = (await call(`/organizations/${organization.id}/invitations`, { token: owner.token })).body.items;
    expect(listed.map((item: { id: string }) => item.id)).toEqual([second.body.id]);
    expect(listed[0].id).not.toBe(first.body.id);

    const person = await createAccount(server, { email });
    const stale = await accept(person, firstToken);
    expect(stale.status).toBe(410);
    expect(stale.body.code).toBe("INVITATION_EXPIRED");
    expect(stale.body.detail).toMatch(/newer invitation/);
    expect((await accept(person, secondToken)).status).toBe(200);
    const member = (await must(`/organizations/${organization.id}/members`, { token: owner.token }, 200)).items.find(
      (item: { userId: string }) => item.userId === person.id,
    );
    expect(member.permissions.can_manage_storage).toBe(true);
  });

  it("two invitations to one new address sent at once: both answered 201, the later replacing the earlier, never a 500", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("twice");
    const send = (permissions: Record<string, boolean>) => invite(owner, `/organizations/${organization.id}`, { email, permissions });
    // The first is written and waits at its email; the second reaches the same address meanwhile.
    const hold = await holdTable(server.databaseUrl, "email_outbox");
    const answers = await queuedBehindHold({
      hold,
      sql: server.server.runtime.deps.sql,
      first: () => send({ can_manage_projects: true }),
      second: () => send({ can_manage_storage: true }),
    });
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const pending = (await must(`/organizations/${organization.id}/invitations`, { token: owner.token }, 200)).items;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ email, permissions: { can_manage_storage: true } });
  });

  it("revoking stops the link; revoking again is 404; both are on record", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("revoked");
    const sent = await invite(owner, `/organizations/${organization.id}`, { email });
    const token = await invitationToken(email);
    const revoked = await call(`/organizations/${organization.id}/invitations/${sent.body.id}`, { method: "DELETE", token: owner.token });
    expect(revoked.status).toBe(204);
    expect((await call(`/organizations/${organization.id}/invitations`, { token: owner.token })).body.items).toEqual([]);
    const person = await createAccount(server, { email });
    const refused = await accept(person, token);
    expect(refused.status).toBe(410);
    expect(refused.body.detail).toMatch(/revoked/);
    expect((await call(`/organizations/${organization.id}/invitations/${sent.body.id}`, { method: "DELETE", token: owner.token })).status).toBe(404);
    expect((await auditOf("organization", organization.id)).map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["organization.invitation_sent", "organization.invitation_revoked"]),
    );
  });

  it("refuses to invite a current member (409 ALREADY_MEMBER) and an address that is not one (400)", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const member = await createAccount(server);
    await addOrganizationMember(owner, organization.id, member);
    await expectProblem(
      await server.request(`/organizations/${organization.id}/invitations`, {
        method: "POST",
        token: owner.token,
        json: { email: member.email.toUpperCase() },
      }),
      409,
      "ALREADY_MEMBER",
    );
    await expectProblem(
      await server.request(`/organizations/${organization.id}/invitations`, { method: "POST", token: owner.token, json: { email: owner.email } }),
      409,
      "ALREADY_MEMBER",
    );
    for (const json of [{ email: "not an address" }, {}, { email: freshEmail("x"), permissions: { can_fly: true } }, { email: freshEmail("x"), extra: 1 }])
      await expectProblem(
        await server.request(`/organizations/${organization.id}/invitations`, { method: "POST", token: owner.token, json }),
        400,
        "VALIDATION_FAILED",
      );
    expect((await call("/api/v1/invitations/accept", { method: "POST", token: owner.token, json: {} })).status).toBe(400);
    expect((await call("/api/v1/invitations/accept", { method: "POST", token: owner.token, json: { token: "mvi_nothing" } })).status).toBe(404);
  });

  it("refuses callers who may not manage members: 401 without credentials, 403 for a member without can_manage_members, 404 for a stranger", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const member = await createAccount(server);
    const stranger = await createAccount(server);
    await addOrganizationMember(owner, organization.id, member, { can_manage_projects: true });
    const sent = await invite(owner, `/organizations/${organization.id}`, { email: freshEmail("guarded") });
    const base = `/organizations/${organization.id}/invitations`;
    for (const [path, method, json] of [
      [base, "GET", undefined],
      [base, "POST", { email: freshEmail("x") }],
      [`${base}/${sent.body.id}`, "DELETE", undefined],
    ] as const) {
      await expectProblem(await server.request(path, { method, json }), 401, "UNAUTHENTICATED");
      await expectProblem(await server.request(path, { method, token: member.token, json }), 403, "FORBIDDEN");
      await expectProblem(await server.request(path, { method, token: stranger.token, json }), 404, "NOT_FOUND");
    }
    await expectProblem(await server.request("/api/v1/invitations/accept", { method: "POST", json: { token: "anything" } }), 401, "UNAUTHENTICATED");
    expect((await call(base, { token: owner.token })).body.items).toHaveLength(1);
  });

  it("a deleted organization takes its invitations with it", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("orphan");
    await invite(owner, `/organizations/${organization.id}`, { email });
    const token = await invitationToken(email);
    expect((await call(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await call(`/api/v1/invitations/${encodeURIComponent(token)}`)).status).toBe(404);
  });
});

describe("observatory and project invitations", () => {
  it("an observatory admin invites with observatory permissions; acceptance makes a member, in the observatory's history", async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner);
    const email = freshEmail("observer");
    const sent = await invite(owner, `/observatories/${observatory.id}`, { email, permissions: { can_observe: true } });
    expect(sent.status).toBe(201);
    expect(sent.body.permissions).toMatchObject({ can_view: true, can_observe: true, can_operate: false, can_admin: false });
    const person = await createAccount(server, { email });
    const accepted = await accept(person, await invitationToken(email));
    expect(accepted.body).toEqual({ kind: "observatory", id: observatory.id });
    const members = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(members.users.find((user: { userId: string }) => user.userId === person.id)).toMatchObject({ permissions: { can_observe: true, can_admin: false } });
    const history = (await must(`/observatories/${observatory.id}/history?limit=200`, { token: owner.token }, 200)).items as Array<{ type: string }>;
    expect(history.map((entry) => entry.type)).toEqual(expect.arrayContaining(["invitation_sent", "member_added", "invitation_accepted"]));

    // A member who may only observe cannot invite.
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/invitations`, { method: "POST", token: person.token, json: { email: freshEmail("x") } }),
      403,
      "FORBIDDEN",
    );
  });

  it("a project owner invites with a role; acceptance makes a project member with it", async () => {
    const owner = await createAccount(server);
    const project = await must("/projects", { method: "POST", token: owner.token, json: { name: `Invited project ${randomBytes(2).toString("hex")}` } }, 201);
    const email = freshEmail("colleague");
    const sent = await invite(owner, `/projects/${project.id}`, { email, role: "admin" });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ email, role: "admin", expired: false });
    expect((await invite(owner, `/projects/${project.id}`, { email: freshEmail("x") })).status).toBe(400);
    await expectProblem(
      await server.request(`/projects/${project.id}/invitations`, { method: "POST", token: owner.token, json: { email: owner.email, role: "member" } }),
      409,
      "ALREADY_MEMBER",
    );
    // Only the owner and project admins manage invitations: a stranger does not see the project at all.
    const stranger = await createAccount(server);
    await expectProblem(await server.request(`/projects/${project.id}/invitations`, { token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(
      await server.request(`/projects/${project.id}/invitations/${sent.body.id}`, { method: "DELETE", token: stranger.token }),
      404,
      "NOT_FOUND",
    );
    const person = await createAccount(server, { email });
    expect((await accept(person, await invitationToken(email))).body).toEqual({ kind: "project", id: project.id });
    const members = (await must(`/projects/${project.id}/members`, { token: owner.token }, 200)).items;
    expect(members.find((member: { userId: string }) => member.userId === person.id)).toMatchObject({ role: "admin" });
    // A plain member may not invite.
    await must(`/projects/${project.id}/members/${person.id}`, { method: "PUT", token: owner.token, json: { role: "member" } }, 200);
    await expectProblem(
      await server.request(`/projects/${project.id}/invitations`, { method: "POST", token: person.token, json: { email: freshEmail("x"), role: "member" } }),
      403,
      "FORBIDDEN",
    );
    expect((await auditOf("project", project.id)).map((entry) => entry.action)).toEqual(
      expect.arrayContaining(["project.invitation_sent", "project.invitation_accepted"]),
    );
  });
});

describe("an invitation outlived by the membership it offered", () => {
  const scopes = [
    ["organization", async (owner: Account) => `/organizations/${(await createOrganization(owner)).id}`, { permissions: {} }],
    ["observatory", async (owner: Account) => `/observatories/${(await createObservatory(owner)).id}`, { permissions: { can_view: true } }],
    [
      "project",
      async (owner: Account) => `/projects/${(await must("/projects", { method: "POST", token: owner.token, json: { name: "Outlived" } }, 201)).id}`,
      { role: "member" },
    ],
  ] as const;
  it.each(scopes)("%s: ends when the person is added another way, so it cannot bring them back once removed", async (_kind, scopeOf, grant) => {
    const owner = await createAccount(server);
    const base = await scopeOf(owner);
    const email = freshEmail("outlived");
    const person = await createAccount(server, { email });
    expect((await invite(owner, base, { email, ...grant })).status).toBe(201);
    const token = await invitationToken(email);
    // Added directly, the pending invitation is over: no longer listed, and its link says it was revoked.
    await must(`${base}/members`, { method: "POST", token: owner.token, json: { email, ...grant } }, 201);
    expect((await must(`${base}/invitations`, { token: owner.token }, 200)).items).toEqual([]);
    await must(`${base}/members/${person.id}`, { method: "DELETE", token: owner.token }, 204);
    const refused = await accept(person, token);
    expect(refused.status).toBe(410);
    expect(refused.body.detail).toMatch(/revoked/);
    expect((await call(base, { token: person.token })).status).toBe(404);
  });
});

describe("an invitation accepted while its scope goes away", () => {
  /**
   * A scope of the owner's, ready to be deleted or removed, with a row that its deletion locks after the scope's
   * own (a membership, or an observation to cancel): held, it parks the deletion halfway.
   */
  type Prepared = { base: string; parking: string; grant: Record<string, unknown>; membersOf: (userId: string) => PromiseLike<readonly unknown[]> };
  const sql = () => server.server.runtime.deps.sql;
  const scopes: Array<[string, (owner: Account) => Promise<Prepared>]> = [
    [
      "organization",
      async (owner) => {
        const organization = await createOrganization(owner);
        await addOrganizationMember(owner, organization.id, await createAccount(server));
        return {
          base: `/organizations/${organization.id}`,
          parking: `select id from organization_members where organization_id = '${organization.id}' for update`,
          grant: { permissions: {} },
          membersOf: (userId) => sql()`select id from organization_members where organization_id = ${organization.id} and user_id = ${userId}`,
        };
      },
    ],
    [
      "observatory",
      async (owner) => {
        const observatory = await createObservatory(owner);
        const project = await must("/projects", { method: "POST", token: owner.token, json: { name: "Parked" } }, 201);
        const targets = [{ name: "Mira", ra: 34.84, dec: -2.98, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] }];
        const json = { name: "Waiting", projectId: project.id, observatoryId: observatory.id, targets };
        await must("/observations", { method: "POST", token: owner.token, json }, 201);
        return {
          base: `/observatories/${observatory.id}`,
          parking: `select id from observations where observatory_id = '${observatory.id}' for update`,
          grant: { permissions: { can_view: true } },
          membersOf: (userId) => sql()`select id from observatory_members where observatory_id = ${observatory.id} and member_id = ${userId}`,
        };
      },
    ],
    [
      "project",
      async (owner) => {
        const project = await must("/projects", { method: "POST", token: owner.token, json: { name: "Closing" } }, 201);
        await must(`/projects/${project.id}/members`, {
          method: "POST",
          token: owner.token,
          json: { email: (await createAccount(server)).email, role: "member" },
        });
        await must(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } }, 200);
        return {
          base: `/projects/${project.id}`,
          parking: `select id from project_members where project_id = '${project.id}' for update`,
          grant: { role: "member" },
          membersOf: (userId) => sql()`select id from project_members where project_id = ${project.id} and user_id = ${userId}`,
        };
      },
    ],
  ];
  it.each(scopes)("%s: the acceptance waits for the deletion under way and is refused (410), leaving no member behind", async (_kind, prepare) => {
    const owner = await createAccount(server);
    const { base, parking, grant, membersOf } = await prepare(owner);
    const email = freshEmail("closing");
    const person = await createAccount(server, { email });
    expect((await invite(owner, base, { email, ...grant })).status).toBe(201);
    const token = await invitationToken(email);
    const hold = await holdRows(server.databaseUrl, parking);
    try {
      const removal = call(base, { method: "DELETE", token: owner.token });
      await until("the deletion to wait at the hold", () => hold.waiting(), { intervalMs: 5 });
      const acceptance = accept(person, token);
      let answered = false;
      void acceptance.finally(() => (answered = true));
      await until("the acceptance to wait for the deletion, or to answer", async () => answered || (await lockWaiters(sql())) >= 2, { intervalMs: 5 });
      await hold.release();
      expect((await removal).status).toBe(204);
      const accepted = await acceptance;
      expect({ status: accepted.status, code: accepted.body.code }).toEqual({ status: 410, code: "INVITATION_EXPIRED" });
    } finally {
      await hold.release();
    }
    expect(await membersOf(person.id)).toEqual([]);
  });
});

describe("limits and expiry", () => {
  it("rate limits invitations per address and per scope with a clear 429", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("flooded");
    for (let sent = 0; sent < 5; sent += 1) expect((await invite(owner, `/organizations/${organization.id}`, { email })).status).toBe(201);
    await expectProblem(
      await server.request(`/organizations/${organization.id}/invitations`, { method: "POST", token: owner.token, json: { email } }),
      429,
      "RATE_LIMITED",
    );
    for (let sent = 5; sent < SCOPE_LIMIT; sent += 1)
      expect((await invite(owner, `/organizations/${organization.id}`, { email: freshEmail("many") })).status).toBe(201);
    await expectProblem(
      await server.request(`/organizations/${organization.id}/invitations`, {
        method: "POST",
        token: owner.token,
        json: { email: freshEmail("one-too-many") },
      }),
      429,
      "RATE_LIMITED",
    );
    expect(mailsTo(email)).toBeLessThanOrEqual(5);
  });

  it("answers an invitation that the address's and the scope's limits refuse together with the longer wait", async () => {
    const owner = await createAccount(server);
    const base = `/organizations/${(await createOrganization(owner)).id}`;
    const email = freshEmail("waited");
    const refusedAfter = async (to: string) => {
      const response = await server.request(`${base}/invitations`, { method: "POST", token: owner.token, json: { email: to } });
      await expectProblem(response, 429, "RATE_LIMITED");
      return Number(response.headers.get("retry-after"));
    };
    for (let sent = 0; sent < 3; sent += 1) expect((await invite(owner, base, { email: freshEmail("early") })).status).toBe(201);
    clock.set(clock.now() + 10 * 60_000);
    // The address's five, ten minutes later, fill the scope's eight too.
    for (let sent = 0; sent < 5; sent += 1) expect((await invite(owner, base, { email })).status).toBe(201);
    clock.set(clock.now() + 10 * 60_000);

    // The scope has room again in 40 minutes (its first three leave the hour), the address in 50: the answer is 50.
    expect(await refusedAfter(email)).toBe(50 * 60);
    expect(await refusedAfter(freshEmail("other"))).toBe(40 * 60);
    clock.set(clock.now() + 50 * 60_000);
    expect((await invite(owner, base, { email })).status).toBe(201);
  });

  // Last: it moves the server's clock a week on.
  it("a link is good for seven days: listed as expired afterwards, and 410 INVITATION_EXPIRED", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("late");
    await invite(owner, `/organizations/${organization.id}`, { email });
    const token = await invitationToken(email);
    const person = await createAccount(server, { email });
    clock.set(clock.now() + WEEK_MS + 1000);
    const late = await accept(person, token);
    expect(late.status).toBe(410);
    expect(late.body.code).toBe("INVITATION_EXPIRED");
    expect(late.body.detail).toMatch(/expired/);
    expect((await call(`/organizations/${organization.id}/invitations`, { token: owner.token })).body.items).toMatchObject([{ email, expired: true }]);
    // Resending starts a new week.
    expect((await invite(owner, `/organizations/${organization.id}`, { email })).status).toBe(201);
    expect((await accept(person, await invitationToken(email, 1))).status).toBe(200);
  });
});

describe("two acceptances at the last place of a scope's members", () => {
  const CAP = 10_000;
  const sql = () => server.server.runtime.deps.sql;
  /** Each kind's scope, filled to CAP - 1 counted members: one added through the API, the rest written as copies of it. */
  const scopes = [
    {
      kind: "organization",
      table: "organizations",
      async fill(owner: Account) {
        const organization = await createOrganization(owner);
        const seed = await createAccount(server);
        await addOrganizationMember(owner, organization.id, seed);
        // The owner is a member too.
        return { id: organization.id, base: `/organizations/${organization.id}`, seed, copies: CAP - 3 };
      },
      members: { table: "organization_members", scopeColumn: "organization_id", column: "user_id", field: "userId", counted: "" },
      grant: {},
      refusal: `The organization has ${CAP} members, the most one may have; one must leave first`,
    },
    {
      kind: "observatory",
      table: "observatories",
      async fill(owner: Account) {
        const observatory = await createObservatory(owner);
        const seed = await createAccount(server);
        await must(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: seed.email } }, 201);
        return { id: observatory.id, base: `/observatories/${observatory.id}`, seed, copies: CAP - 2 };
      },
      members: { table: "observatory_members", scopeColumn: "observatory_id", column: "member_id", field: "memberId", counted: "and member_kind = 'user'" },
      grant: {},
      refusal: `The observatory has ${CAP} user members, the most one may have; remove one first`,
    },
    {
      kind: "project",
      table: "projects",
      async fill(owner: Account) {
        const project = await must("/projects", { method: "POST", token: owner.token, json: { name: `Full ${randomBytes(2).toString("hex")}` } }, 201);
        const seed = await createAccount(server);
        await must(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: seed.email, role: "member" } }, 201);
        return { id: project.id as string, base: `/projects/${project.id}`, seed, copies: CAP - 2 };
      },
      members: { table: "project_members", scopeColumn: "project_id", column: "user_id", field: "userId", counted: "" },
      grant: { role: "member" },
      refusal: `The project has ${CAP} members, the most one may have; one must leave first`,
    },
  ] as const;

  for (const scope of scopes) {
    it(`${scope.kind}: exactly one joins, the other is 409 CONFLICT and keeps its link`, async () => {
      const owner = await createAccount(server);
      const { id, base, seed, copies } = await scope.fill(owner);
      const { counted: only, ...membership } = scope.members;
      await copyMembers(sql(), { userId: seed.id, copies, membership: { ...membership, scopeId: id } });
      const counted = async () =>
        (
          await sql().unsafe<Array<{ count: number }>>(`select count(*)::int as count from ${membership.table} where ${membership.scopeColumn} = $1 ${only}`, [
            id,
          ])
        )[0]!.count;
      expect(await counted()).toBe(CAP - 1);
      const [first, second] = [await createAccount(server), await createAccount(server)];
      const tokens: string[] = [];
      for (const person of [first, second]) {
        expect((await invite(owner, base, { email: person.email, ...scope.grant })).status).toBe(201);
        tokens.push(await invitationToken(person.email));
      }
      const acceptance = (person: Account, token: string) =>
        server.request("/api/v1/invitations/accept", { method: "POST", token: person.token, json: { token } });
      // Both lock the scope's row before they count: the first waits at the held row, the second queues behind.
      const hold = await holdRows(server.databaseUrl, `select id from ${scope.table} where id = '${id}' for update`);
      const answers = await queuedBehindHold({
        hold,
        sql: sql(),
        first: () => acceptance(first, tokens[0]!),
        second: () => acceptance(second, tokens[1]!),
      });
      await expectOneCreatedOneRefused(answers, scope.refusal, 200);
      expect(await counted()).toBe(CAP);
      const pending = (await must(`${base}/invitations`, { token: owner.token }, 200)).items as Array<{ email: string }>;
      expect(pending).toHaveLength(1);
    });
  }
});

describe("two acceptances of one link at once", () => {
  it("one joins (200); the other is 410 INVITATION_EXPIRED saying the link was already used, word for word as a later second acceptance", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    const email = freshEmail("twice");
    const person = await createAccount(server, { email });
    expect((await invite(owner, `/organizations/${organization.id}`, { email })).status).toBe(201);
    const token = await invitationToken(email);
    const acceptance = () => server.request("/api/v1/invitations/accept", { method: "POST", token: person.token, json: { token } });
    // Both lock the organization's row first: the first waits at the held row, the second queues behind it.
    const hold = await holdRows(server.databaseUrl, `select id from organizations where id = '${organization.id}' for update`);
    const answers = await queuedBehindHold({ hold, sql: server.server.runtime.deps.sql, first: acceptance, second: acceptance });
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 410]);
    const loser = await expectProblem(
      answers.find((answer) => answer.status === 410)!,
      410,
      "INVITATION_EXPIRED",
    );
    expect(loser.detail).toBe("This invitation has already been used");
    const later = await expectProblem(await acceptance(), 410, "INVITATION_EXPIRED");
    expect(later.detail).toBe(loser.detail);
  });
});
