import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { expectMemberCapHeld } from "../support/member-caps";
import { copyMembers, copyRow } from "../support/row-copies";
import { holdRows, holdTable, lockWaiters, queuedBehindHold } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
});
afterAll(() => server?.stop());

const ALL = { can_manage_members: true, can_manage_observatories: true, can_manage_projects: true, can_manage_billing: true, can_manage_storage: true };
const NONE = { can_manage_members: false, can_manage_observatories: false, can_manage_projects: false, can_manage_billing: false, can_manage_storage: false };

type Member = { userId: string; email: string; name: string; role: "owner" | "member"; permissions: typeof ALL; joinedAt: string };

const { call, createOrganization } = jsonApi(() => server);
const addMember = async (as: Account, organizationId: string, email: string, permissions?: Partial<typeof ALL>) =>
  server.request(`/organizations/${organizationId}/members`, { method: "POST", token: as.token, json: permissions ? { email, permissions } : { email } });
const members = async (as: Account, organizationId: string) => {
  const result = await call(`/organizations/${organizationId}/members`, { token: as.token });
  expect(result.status).toBe(200);
  return result.body.items as Member[];
};
const memberOf = async (as: Account, organizationId: string, userId: string) => (await members(as, organizationId)).find((member) => member.userId === userId);
/** A new owner's new organization, and a new account added to it (201), with `permissions` when given. */
const organizationWithMember = async (permissions?: Partial<typeof ALL>) => {
  const owner = await createAccount(server);
  const member = await createAccount(server);
  const organization = await createOrganization(owner);
  expect((await addMember(owner, organization.id, member.email, permissions)).status).toBe(201);
  return { owner, member, organization };
};
/** `as` asks for the organization's ownership to go to the account `json.userId` names: the answer, whatever its status. */
const transferOwnership = (as: Account, organizationId: string, json: unknown) =>
  server.request(`/organizations/${organizationId}/transfer-ownership`, { method: "POST", token: as.token, json });
/** The organization's owner, as `as` reads it. */
const ownerIdOf = async (as: Account, organizationId: string) => (await call(`/organizations/${organizationId}`, { token: as.token })).body.ownerId as string;

describe("adding members", () => {
  it("finds the user by exact email in any letter case and stores exactly the permissions sent", async () => {
    const owner = await createAccount(server);
    const t = randomBytes(3).toString("hex");
    const alice = await createAccount(server, { email: `Alice.${t}@Example.com`, name: "Alice" });
    const organization = await createOrganization(owner);

    const response = await addMember(owner, organization.id, `  ALICE.${t}@EXAMPLE.COM `, { can_manage_projects: true });
    expect(response.status).toBe(201);
    const added = (await response.json()) as Member;
    expect(added).toEqual({
      userId: alice.id,
      email: alice.email,
      name: "Alice",
      role: "member",
      permissions: { ...NONE, can_manage_projects: true },
      joinedAt: expect.any(String),
    });
    expect(await memberOf(owner, organization.id, alice.id)).toEqual(added);

    // A member sees the organization and its members, with their own role and permissions.
    expect((await call(`/organizations/${organization.id}`, { token: alice.token })).body).toMatchObject({
      id: organization.id,
      myRole: "member",
      myPermissions: { ...NONE, can_manage_projects: true },
    });
    expect((await members(alice, organization.id)).map((member) => [member.userId, member.role])).toEqual([
      [owner.id, "owner"],
      [alice.id, "member"],
    ]);
    expect((await call("/organizations", { token: alice.token })).body.items.map((item: { id: string }) => item.id)).toEqual([organization.id]);
  });

  it("defaults every permission to false when none are sent", async () => {
    const owner = await createAccount(server);
    const bob = await createAccount(server);
    const organization = await createOrganization(owner);
    const response = await addMember(owner, organization.id, bob.email);
    expect(response.status).toBe(201);
    expect(((await response.json()) as Member).permissions).toEqual(NONE);
  });

  it("answers USER_NOT_FOUND alike for unknown and partial emails, so nobody can enumerate users", async () => {
    const owner = await createAccount(server);
    const t = randomBytes(3).toString("hex");
    await createAccount(server, { email: `carol_${t}@example.com` });
    const organization = await createOrganization(owner);
    const attempts = [
      `nobody-${t}@example.com`,
      `carol_${t.slice(0, 4)}@example.com`, // a prefix of the local part
      `carolx${t}@example.com`, // the underscore is a LIKE wildcard: matching must not treat it as one
      `carol_${t}@example.co`, // a prefix of the domain
      `arol_${t}@example.com`, // a suffix
    ];
    const answers = [];
    for (const email of attempts) {
      const problem = await expectProblem(await addMember(owner, organization.id, email), 404, "USER_NOT_FOUND");
      answers.push({ title: problem.title, detail: problem.detail });
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]!.detail).not.toContain("carol");
    expect((await members(owner, organization.id)).map((member) => member.userId)).toEqual([owner.id]);
  });

  it("refuses what is not an email with 400, and unknown fields or permission keys with 400", async () => {
    const owner = await createAccount(server);
    const dave = await createAccount(server);
    const organization = await createOrganization(owner);
    for (const body of [
      { email: "carol" },
      { email: "@example.com" },
      { email: "%@example.com" },
      { email: "%" },
      { email: dave.email, role: "admin" },
      { email: dave.email, permissions: { can_fly: true } },
      { email: dave.email, permissions: { can_manage_members: "yes" } },
    ]) {
      await expectProblem(
        await server.request(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: body }),
        400,
        "VALIDATION_FAILED",
      );
    }
    expect((await members(owner, organization.id)).map((member) => member.userId)).toEqual([owner.id]);
  });

  it("refuses a second membership with 409 ALREADY_MEMBER, the owner included", async () => {
    const { owner, member: erin, organization } = await organizationWithMember();
    await expectProblem(await addMember(owner, organization.id, erin.email.toUpperCase(), { can_manage_members: true }), 409, "ALREADY_MEMBER");
    await expectProblem(await addMember(owner, organization.id, owner.email), 409, "ALREADY_MEMBER");
    expect((await memberOf(owner, organization.id, erin.id))?.permissions).toEqual(NONE);
  });

  it("lets a member with can_manage_members add, change and remove members", async () => {
    const owner = await createAccount(server);
    const manager = await createAccount(server);
    const frank = await createAccount(server);
    const organization = await createOrganization(owner);
    expect((await addMember(owner, organization.id, manager.email, { can_manage_members: true })).status).toBe(201);
    expect((await addMember(manager, organization.id, frank.email)).status).toBe(201);
    const changed = await call(`/organizations/${organization.id}/members/${frank.id}`, {
      method: "PUT",
      token: manager.token,
      json: { permissions: { can_manage_storage: true } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ userId: frank.id, role: "member", permissions: { ...NONE, can_manage_storage: true } });
    expect((await call(`/organizations/${organization.id}/members/${frank.id}`, { method: "DELETE", token: manager.token })).status).toBe(204);
    expect(await memberOf(owner, organization.id, frank.id)).toBeUndefined();
  });
});

describe("changing permissions", () => {
  it("changes only the permissions sent", async () => {
    const { owner, member: gina, organization } = await organizationWithMember({ can_manage_members: true, can_manage_billing: true });
    const changed = await call(`/organizations/${organization.id}/members/${gina.id}`, {
      method: "PUT",
      token: owner.token,
      json: { permissions: { can_manage_members: false, can_manage_projects: true } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.permissions).toEqual({ ...NONE, can_manage_billing: true, can_manage_projects: true });
    expect((await memberOf(owner, organization.id, gina.id))?.permissions).toEqual(changed.body.permissions);
  });

  it("refuses to change the owner's permissions with 409 OWNER_PERMISSIONS_FIXED", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_members: true });
    for (const as of [owner, manager]) {
      await expectProblem(
        await server.request(`/organizations/${organization.id}/members/${owner.id}`, {
          method: "PUT",
          token: as.token,
          json: { permissions: { can_manage_members: false } },
        }),
        409,
        "OWNER_PERMISSIONS_FIXED",
      );
    }
    expect((await memberOf(owner, organization.id, owner.id))?.permissions).toEqual(ALL);
  });

  it("answers 404 for a user who is not a member", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const organization = await createOrganization(owner);
    await expectProblem(
      await server.request(`/organizations/${organization.id}/members/${outsider.id}`, { method: "PUT", token: owner.token, json: { permissions: {} } }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await server.request(`/organizations/${organization.id}/members/${outsider.id}`, { method: "DELETE", token: owner.token }),
      404,
      "NOT_FOUND",
    );
  });

  it("takes away a manager's power on the very next request", async () => {
    const owner = await createAccount(server);
    const manager = await createAccount(server);
    const helen = await createAccount(server);
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, manager.email, { can_manage_members: true });
    await call(`/organizations/${organization.id}/members/${manager.id}`, {
      method: "PUT",
      token: owner.token,
      json: { permissions: { can_manage_members: false } },
    });
    await expectProblem(await addMember(manager, organization.id, helen.email), 403, "FORBIDDEN");
  });
});

describe("removing members and leaving", () => {
  it("never removes the owner: 409 OWNER_CANNOT_BE_REMOVED, whoever asks", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_members: true });
    for (const as of [owner, manager]) {
      await expectProblem(
        await server.request(`/organizations/${organization.id}/members/${owner.id}`, { method: "DELETE", token: as.token }),
        409,
        "OWNER_CANNOT_BE_REMOVED",
      );
    }
    expect((await memberOf(owner, organization.id, owner.id))?.role).toBe("owner");
  });

  it("lets any member leave, after which the organization is gone for them", async () => {
    const { owner, member: ivan, organization } = await organizationWithMember();
    expect((await call(`/organizations/${organization.id}/members/${ivan.id}`, { method: "DELETE", token: ivan.token })).status).toBe(204);
    await expectProblem(await server.request(`/organizations/${organization.id}`, { token: ivan.token }), 404, "NOT_FOUND");
    expect((await call("/organizations", { token: ivan.token })).body.items).toEqual([]);
    expect(await memberOf(owner, organization.id, ivan.id)).toBeUndefined();
  });

  it("does not let a member without can_manage_members remove someone else", async () => {
    const owner = await createAccount(server);
    const judy = await createAccount(server);
    const ken = await createAccount(server);
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, judy.email, {
      can_manage_observatories: true,
      can_manage_projects: true,
      can_manage_storage: true,
      can_manage_billing: true,
    });
    await addMember(owner, organization.id, ken.email);
    await expectProblem(await server.request(`/organizations/${organization.id}/members/${ken.id}`, { method: "DELETE", token: judy.token }), 403, "FORBIDDEN");
    expect(await memberOf(owner, organization.id, ken.id)).toBeDefined();
  });
});

describe("POST /organizations/{id}/transfer-ownership", () => {
  it("moves ownership to a member; the previous owner stays a member with every permission", async () => {
    const { owner, member: heir, organization } = await organizationWithMember({ can_manage_projects: true });

    const transferred = await call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } });
    expect(transferred.status).toBe(200);
    expect(transferred.body).toMatchObject({ id: organization.id, name: organization.name, ownerId: heir.id });

    const after = await members(heir, organization.id);
    expect(after.find((member) => member.userId === heir.id)).toMatchObject({ role: "owner", permissions: ALL });
    expect(after.find((member) => member.userId === owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(after).toHaveLength(2);

    // The previous owner may no longer transfer, and may now be removed; the new owner may not.
    await expectProblem(await transferOwnership(owner, organization.id, { userId: owner.id }), 403, "FORBIDDEN");
    await expectProblem(
      await server.request(`/organizations/${organization.id}/members/${heir.id}`, { method: "DELETE", token: owner.token }),
      409,
      "OWNER_CANNOT_BE_REMOVED",
    );
    // Ownership returns, and the previous owner's permissions are still all true.
    expect(
      (await call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: heir.token, json: { userId: owner.id } })).body.ownerId,
    ).toBe(owner.id);
    expect(await memberOf(owner, organization.id, heir.id)).toMatchObject({ role: "member", permissions: ALL });
    expect((await call(`/organizations/${organization.id}/members/${heir.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
  });

  it("refuses a user who is not a member with 409 NOT_A_MEMBER, and changes nothing", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const organization = await createOrganization(owner);
    for (const userId of [outsider.id, "usr_doesnotexist"]) {
      await expectProblem(await transferOwnership(owner, organization.id, { userId }), 409, "NOT_A_MEMBER");
    }
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
  });

  it("is for the owner only: 403 for a member with every permission", async () => {
    const owner = await createAccount(server);
    const manager = await createAccount(server);
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, manager.email, ALL);
    await expectProblem(await transferOwnership(manager, organization.id, { userId: manager.id }), 403, "FORBIDDEN");
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
  });

  it("refuses an unknown field or a missing userId with 400", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    for (const body of [{}, { userId: owner.id, keepOwner: true }, { userId: 42 }, { userId: "usr_\u0000" }]) {
      await expectProblem(await transferOwnership(owner, organization.id, body), 400, "VALIDATION_FAILED");
    }
  });
});

/**
 * Every write that depends on an organization's owner or existence locks the organization row
 * first, as the transfer and the deletion do, then the member rows: concurrent ones queue, and
 * the later one sees what the earlier one did. Each test stops the first write at a row or table
 * it reaches after its checks, starts the second, and lets both go once the second waits too.
 */
describe("member changes racing a transfer or a deletion", () => {
  const waitingOnLocks = () => lockWaiters(server.server.runtime.deps.sql);
  const stored = (organizationId: string) => server.server.runtime.deps.sql<Array<{ userId: string; permissions: typeof ALL }>>`
    select user_id as "userId", doc->'permissions' as permissions from organization_members where organization_id = ${organizationId} order by created_at`;
  const answer = (result: { status: number; body: { code?: string } | null }) => ({ status: result.status, code: result.body?.code });
  /** Holds a membership row, so that the first write to reach it waits there. */
  const holdMembership = (organizationId: string, userId: string) =>
    holdRows(server.databaseUrl, `select id from organization_members where organization_id = '${organizationId}' and user_id = '${userId}' for update`);

  it("never leaves an owner who is not a member: the heir removed during the transfer makes it 409 NOT_A_MEMBER", async () => {
    const { owner, member: heir, organization } = await organizationWithMember();

    // The removal checks the owner, then waits at the heir's membership row; the transfer comes meanwhile.
    const hold = await holdMembership(organization.id, heir.id);
    const [removed, transferred] = await queuedBehindHold({
      hold,
      sql: server.server.runtime.deps.sql,
      first: () => call(`/organizations/${organization.id}/members/${heir.id}`, { method: "DELETE", token: owner.token }),
      second: () => call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } }),
    });

    // Serially: the heir is gone, so ownership cannot go to them, and the owner is still a member.
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect((await stored(organization.id)).map((member) => member.userId)).toEqual([owner.id]);
    expect([answer(removed), answer(transferred)]).toEqual([
      { status: 204, code: undefined },
      { status: 409, code: "NOT_A_MEMBER" },
    ]);
    expect((await members(owner, organization.id)).map((member) => [member.userId, member.role])).toEqual([[owner.id, "owner"]]);
  });

  it("does not change the permissions of a member who became the owner meanwhile: 409 OWNER_PERMISSIONS_FIXED", async () => {
    const { owner, member: heir, organization } = await organizationWithMember();

    // The transfer checks the heir, then waits at their membership row; the change of their permissions comes meanwhile.
    const hold = await holdMembership(organization.id, heir.id);
    const [transferred, changed] = await queuedBehindHold({
      hold,
      sql: server.server.runtime.deps.sql,
      first: () => call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } }),
      second: () =>
        call(`/organizations/${organization.id}/members/${heir.id}`, {
          method: "PUT",
          token: owner.token,
          json: { permissions: { can_manage_members: false } },
        }),
    });

    // The stored permissions of the new owner are still all true, and the change was refused as it is serially.
    expect(await stored(organization.id)).toEqual([
      { userId: owner.id, permissions: ALL },
      { userId: heir.id, permissions: ALL },
    ]);
    expect(answer(transferred)).toEqual({ status: 200, code: undefined });
    expect(answer(changed)).toEqual({ status: 409, code: "OWNER_PERMISSIONS_FIXED" });
  });

  it("adds no member to an organization being deleted: the addition waits, then answers 404", async () => {
    const owner = await createAccount(server);
    const newcomer = await createAccount(server);
    const organization = await createOrganization(owner);

    // The deletion removes the memberships, then waits at the announcements it cancels; the addition comes meanwhile.
    const hold = await holdTable(server.databaseUrl, "announcements");
    let deleted: Awaited<ReturnType<typeof call>>;
    let added: Awaited<ReturnType<typeof call>>;
    try {
      const deletion = call(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token });
      await until("the deletion to wait at the announcements", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      let settled = false;
      const addition = call(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: { email: newcomer.email } }).finally(
        () => {
          settled = true;
        },
      );
      // Without the organization's lock the addition would not wait: it would be written and answered at once.
      await until("the addition to wait behind the deletion, or be answered", async () => settled || (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      [deleted, added] = await Promise.all([deletion, addition]);
    } finally {
      await hold.release();
    }

    expect(await stored(organization.id)).toEqual([]);
    expect(answer(deleted)).toEqual({ status: 204, code: undefined });
    expect(answer(added)).toEqual({ status: 404, code: "NOT_FOUND" });
    expect((await call("/organizations", { token: newcomer.token })).body.items).toEqual([]);
  });
});

describe("what each organization permission grants", () => {
  it("can_manage_billing is stored and grants nothing", async () => {
    const owner = await createAccount(server);
    const biller = await createAccount(server);
    const lara = await createAccount(server);
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, biller.email, { can_manage_billing: true });
    expect((await memberOf(owner, organization.id, biller.id))?.permissions).toEqual({ ...NONE, can_manage_billing: true });

    await expectProblem(await addMember(biller, organization.id, lara.email), 403, "FORBIDDEN");
    await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "PUT", token: biller.token, json: { externalStorage: [] } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "PUT", token: biller.token, json: { description: "billing" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request("/observatories", { method: "POST", token: biller.token, json: { name: "Billed", organizationId: organization.id } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request("/projects", { method: "POST", token: biller.token, json: { name: "Billed", organizationId: organization.id } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(await server.request(`/organizations/${organization.id}/audit`, { token: biller.token }), 403, "FORBIDDEN");
  });

  it("can_manage_observatories lets a member create an observatory the organization owns", async () => {
    const { member: manager, organization } = await organizationWithMember({ can_manage_observatories: true });
    const created = await call("/observatories", { method: "POST", token: manager.token, json: { name: "Anderson Mesa", organizationId: organization.id } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Anderson Mesa", owner: { kind: "organization", id: organization.id } });
    const observatoryMembers = await call(`/observatories/${created.body.id}/members`, { token: manager.token });
    expect(observatoryMembers.body).toEqual({
      users: [],
      organizations: [
        {
          organizationId: organization.id,
          name: organization.name,
          permissions: { can_view: true, can_observe: true, can_operate: true, can_admin: true },
          owning: true,
        },
      ],
    });
    // Its creator administers it through the organization, not as a user owner.
    const mine = await call(`/observatories/${created.body.id}/permissions/me`, { token: manager.token });
    expect(mine.body).toMatchObject({
      can_view: true,
      can_observe: true,
      can_operate: true,
      can_admin: true,
      sources: [{ kind: "organization", organizationId: organization.id, role: "admin" }],
    });
  });

  it("can_manage_projects lets a member create the organization's projects", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_projects: true });
    const created = await call("/projects", { method: "POST", token: manager.token, json: { name: "Pluto follow-up", organizationId: organization.id } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Pluto follow-up", status: "active", ownerId: manager.id, organizationId: organization.id });
    // The organization's owner manages it too.
    expect((await call(`/projects/${created.body.id}`, { method: "PUT", token: owner.token, json: { status: "paused" } })).body.status).toBe("paused");
  });
});

describe("how many members one organization has", () => {
  const CAP = 10_000;
  const sql = () => server.server.runtime.deps.sql;
  const stored = async (organizationId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from organization_members where organization_id = ${organizationId}`)[0]!.count;
  /** An organization of `size` members: its owner, one added through the API, the rest written as copies of that one. */
  const organizationOf = async (owner: Account, size: number) => {
    const organization = await createOrganization(owner);
    const seed = await createAccount(server);
    expect((await addMember(owner, organization.id, seed.email)).status).toBe(201);
    const membership = { table: "organization_members", scopeColumn: "organization_id", scopeId: organization.id, column: "user_id", field: "userId" };
    await copyMembers(sql(), { userId: seed.id, copies: size - 2, membership });
    return organization;
  };
  const refusal = `The organization has ${CAP} members, the most one may have; one must leave first`;

  it(`refuses a member past ${CAP} with 409 CONFLICT, added or by invitation, stores nothing, and lists every one`, async () => {
    const owner = await createAccount(server);
    const organization = await organizationOf(owner, CAP - 1);
    await expectMemberCapHeld({
      server,
      owner,
      base: `/organizations/${organization.id}`,
      cap: CAP,
      refusal,
      add: (person) => addMember(owner, organization.id, person.email),
      stored: () => stored(organization.id),
      listed: async () => (await members(owner, organization.id)).map((member) => member.userId),
      extra: 0,
    });
  });

  it("lets exactly one of two additions at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount(server);
    const organization = await organizationOf(owner, CAP - 1);
    const [first, second] = [await createAccount(server), await createAccount(server)];
    // Both count under the organization's row: the first waits at it, the second queues behind.
    const hold = await holdRows(server.databaseUrl, `select id from organizations where id = '${organization.id}' for update`);
    const answers = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () => addMember(owner, organization.id, first.email),
      second: () => addMember(owner, organization.id, second.email),
    });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await stored(organization.id)).toBe(CAP);
  });

  it(`refuses a transfer that would put a missing owner back past ${CAP} members with 409 CONFLICT, and takes it once one has left`, async () => {
    const owner = await createAccount(server);
    const [heir, last] = [await createAccount(server), await createAccount(server)];
    const organization = await organizationOf(owner, CAP - 1);
    expect((await addMember(owner, organization.id, heir.email)).status).toBe(201);
    // An owner without a member row, as data written before owners always were members has it.
    await dropOwnerMembership(organization.id, owner.id);
    expect((await addMember(owner, organization.id, last.email)).status).toBe(201);
    expect(await stored(organization.id)).toBe(CAP);

    const transfer = () => call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } });
    const refused = await transfer();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: "CONFLICT", detail: refusal });
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect(await stored(organization.id)).toBe(CAP);

    expect((await server.request(`/organizations/${organization.id}/members/${last.id}`, { method: "DELETE", token: last.token })).status).toBe(204);
    expect((await transfer()).body.ownerId).toBe(heir.id);
    expect(await memberOf(heir, organization.id, owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(await stored(organization.id)).toBe(CAP);
  });
});

const dropOwnerMembership = (organizationId: string, userId: string) =>
  server.server.runtime.deps.sql`delete from organization_members where organization_id = ${organizationId} and user_id = ${userId}`;

describe("a transfer whose previous owner belongs to as many organizations as one may", () => {
  const MEMBERSHIPS = 1000;
  const sql = () => server.server.runtime.deps.sql;
  const belongsTo = async (userId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from organization_members where user_id = ${userId}`)[0]!.count;

  it("refuses to make a missing owner a member again with 409 CONFLICT, and takes it once they left another", async () => {
    const [owner, heir, host] = [await createAccount(server), await createAccount(server), await createAccount(server)];
    const organization = await createOrganization(owner);
    expect((await addMember(owner, organization.id, heir.email)).status).toBe(201);
    await dropOwnerMembership(organization.id, owner.id);
    // The owner belongs to MEMBERSHIPS others: one joined through the API, the rest copies of it.
    const joined = await createOrganization(host);
    expect((await addMember(host, joined.id, owner.email)).status).toBe(201);
    const [row] = await sql()<Array<{ id: string }>>`select id from organization_members where organization_id = ${joined.id} and user_id = ${owner.id}`;
    await copyRow(sql(), { table: "organizations", id: joined.id, copies: MEMBERSHIPS - 1, vary: { column: "short_name_lower", field: "shortName" } });
    await copyRow(sql(), { table: "organization_members", id: row!.id, copies: MEMBERSHIPS - 1, vary: { column: "organization_id", field: "organizationId" } });
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);

    const transfer = () => call(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } });
    const refused = await transfer();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "CONFLICT",
      detail: `The account already belongs to ${MEMBERSHIPS} organizations, the most one may; it must leave one first`,
    });
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);

    expect((await server.request(`/organizations/${joined.id}/members/${owner.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await transfer()).body.ownerId).toBe(heir.id);
    expect(await memberOf(heir, organization.id, owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);
  });
});
