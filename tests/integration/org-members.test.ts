import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectMemberCapHeldThroughCaller } from "../support/member-caps";
import { copyMembers, copyRow } from "../support/row-copies";
import { holdRows, holdTable, lockWaiters, queuedBehindHold } from "../support/table-hold";
import { answerOf, createOrganizationAs, expectRefusal, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";
import { until } from "../support/until";

// Who may add, change, remove and hand over members, and what each permission grants, are the domain's
// rules: through the app router's caller, on a runtime without HTTP. The REST faces of these operations
// (statuses of success, problem+json, 401 before input) are org-access's and the operation walks'.
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

const ALL = { can_manage_members: true, can_manage_observatories: true, can_manage_projects: true, can_manage_billing: true, can_manage_storage: true };
const NONE = { can_manage_members: false, can_manage_observatories: false, can_manage_projects: false, can_manage_billing: false, can_manage_storage: false };

type Account = CallerAccount;
type Permissions = typeof ALL;
const createAccount = (fields: { email?: string; name?: string } = {}) => runtime.signup(fields);
const createOrganization = (owner: Account) => createOrganizationAs(owner);
const sql = () => runtime.deps.sql;
const addMember = (as: Account, organizationId: string, email: string, permissions?: Partial<Permissions>) =>
  as.caller.organizations.addMember(permissions ? { id: organizationId, email, permissions } : { id: organizationId, email });
const updateMember = (as: Account, organizationId: string, userId: string, permissions: Partial<Permissions>) =>
  as.caller.organizations.updateMember({ id: organizationId, userId, permissions });
const removeMember = (as: Account, organizationId: string, userId: string) => as.caller.organizations.removeMember({ id: organizationId, userId });
const members = async (as: Account, organizationId: string) => (await as.caller.organizations.members({ id: organizationId })).items;
const memberOf = async (as: Account, organizationId: string, userId: string) => (await members(as, organizationId)).find((member) => member.userId === userId);
const organizationsOf = async (as: Account) => (await as.caller.organizations.list()).items;
/** A new owner's new organization, and a new account added to it, with `permissions` when given. */
const organizationWithMember = async (permissions?: Partial<Permissions>) => {
  const owner = await createAccount();
  const member = await createAccount();
  const organization = await createOrganization(owner);
  await addMember(owner, organization.id, member.email, permissions);
  return { owner, member, organization };
};
/** `as` asks for the organization's ownership to go to the account `userId` names. */
const transferOwnership = (as: Account, organizationId: string, input: Record<string, unknown>) =>
  as.caller.organizations.transferOwnership({ id: organizationId, ...input } as { id: string; userId: string });
/** The organization's owner, as `as` reads it. */
const ownerIdOf = async (as: Account, organizationId: string) => (await as.caller.organizations.get({ id: organizationId })).ownerId;

describe("adding members", () => {
  it("finds the user by exact email in any letter case and stores exactly the permissions sent", async () => {
    const owner = await createAccount();
    const t = randomBytes(3).toString("hex");
    const alice = await createAccount({ email: `Alice.${t}@Example.com`, name: "Alice" });
    const organization = await createOrganization(owner);

    const added = await addMember(owner, organization.id, `  ALICE.${t}@EXAMPLE.COM `, { can_manage_projects: true });
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
    expect(await alice.caller.organizations.get({ id: organization.id })).toMatchObject({
      id: organization.id,
      myRole: "member",
      myPermissions: { ...NONE, can_manage_projects: true },
    });
    expect((await members(alice, organization.id)).map((member) => [member.userId, member.role])).toEqual([
      [owner.id, "owner"],
      [alice.id, "member"],
    ]);
    expect((await organizationsOf(alice)).map((item) => item.id)).toEqual([organization.id]);
  });

  it("defaults every permission to false when none are sent", async () => {
    const owner = await createAccount();
    const bob = await createAccount();
    const organization = await createOrganization(owner);
    expect((await addMember(owner, organization.id, bob.email)).permissions).toEqual(NONE);
  });

  it("answers USER_NOT_FOUND alike for unknown and partial emails, so nobody can enumerate users", async () => {
    const owner = await createAccount();
    const t = randomBytes(3).toString("hex");
    await createAccount({ email: `carol_${t}@example.com` });
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
      const refusal = await expectRefusal(addMember(owner, organization.id, email), 404, "USER_NOT_FOUND");
      answers.push({ code: refusal.code, message: refusal.message });
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]!.message).not.toContain("carol");
    expect((await members(owner, organization.id)).map((member) => member.userId)).toEqual([owner.id]);
  });

  it("refuses what is not an email with 400, and unknown fields or permission keys with 400", async () => {
    const owner = await createAccount();
    const dave = await createAccount();
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
      await expectRefusal(
        owner.caller.organizations.addMember({ id: organization.id, ...body } as Parameters<Account["caller"]["organizations"]["addMember"]>[0]),
        400,
        "VALIDATION_FAILED",
      );
    }
    expect((await members(owner, organization.id)).map((member) => member.userId)).toEqual([owner.id]);
  });

  it("refuses a second membership with 409 ALREADY_MEMBER, the owner included", async () => {
    const { owner, member: erin, organization } = await organizationWithMember();
    await expectRefusal(addMember(owner, organization.id, erin.email.toUpperCase(), { can_manage_members: true }), 409, "ALREADY_MEMBER");
    await expectRefusal(addMember(owner, organization.id, owner.email), 409, "ALREADY_MEMBER");
    expect((await memberOf(owner, organization.id, erin.id))?.permissions).toEqual(NONE);
  });

  it("lets a member with can_manage_members add, change and remove members", async () => {
    const owner = await createAccount();
    const manager = await createAccount();
    const frank = await createAccount();
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, manager.email, { can_manage_members: true });
    await addMember(manager, organization.id, frank.email);
    const changed = await updateMember(manager, organization.id, frank.id, { can_manage_storage: true });
    expect(changed).toMatchObject({ userId: frank.id, role: "member", permissions: { ...NONE, can_manage_storage: true } });
    await removeMember(manager, organization.id, frank.id);
    expect(await memberOf(owner, organization.id, frank.id)).toBeUndefined();
  });
});

describe("changing permissions", () => {
  it("changes only the permissions sent", async () => {
    const { owner, member: gina, organization } = await organizationWithMember({ can_manage_members: true, can_manage_billing: true });
    const changed = await updateMember(owner, organization.id, gina.id, { can_manage_members: false, can_manage_projects: true });
    expect(changed.permissions).toEqual({ ...NONE, can_manage_billing: true, can_manage_projects: true });
    expect((await memberOf(owner, organization.id, gina.id))?.permissions).toEqual(changed.permissions);
  });

  it("refuses to change the owner's permissions with 409 OWNER_PERMISSIONS_FIXED", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_members: true });
    for (const as of [owner, manager]) {
      await expectRefusal(updateMember(as, organization.id, owner.id, { can_manage_members: false }), 409, "OWNER_PERMISSIONS_FIXED");
    }
    expect((await memberOf(owner, organization.id, owner.id))?.permissions).toEqual(ALL);
  });

  it("answers 404 for a user who is not a member", async () => {
    const owner = await createAccount();
    const outsider = await createAccount();
    const organization = await createOrganization(owner);
    await expectRefusal(updateMember(owner, organization.id, outsider.id, {}), 404, "NOT_FOUND");
    await expectRefusal(removeMember(owner, organization.id, outsider.id), 404, "NOT_FOUND");
  });

  it("takes away a manager's power on the very next request", async () => {
    const owner = await createAccount();
    const manager = await createAccount();
    const helen = await createAccount();
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, manager.email, { can_manage_members: true });
    await updateMember(owner, organization.id, manager.id, { can_manage_members: false });
    await expectRefusal(addMember(manager, organization.id, helen.email), 403, "FORBIDDEN");
  });
});

describe("removing members and leaving", () => {
  it("never removes the owner: 409 OWNER_CANNOT_BE_REMOVED, whoever asks", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_members: true });
    for (const as of [owner, manager]) {
      await expectRefusal(removeMember(as, organization.id, owner.id), 409, "OWNER_CANNOT_BE_REMOVED");
    }
    expect((await memberOf(owner, organization.id, owner.id))?.role).toBe("owner");
  });

  it("lets any member leave, after which the organization is gone for them", async () => {
    const { owner, member: ivan, organization } = await organizationWithMember();
    await removeMember(ivan, organization.id, ivan.id);
    await expectRefusal(ivan.caller.organizations.get({ id: organization.id }), 404, "NOT_FOUND");
    expect(await organizationsOf(ivan)).toEqual([]);
    expect(await memberOf(owner, organization.id, ivan.id)).toBeUndefined();
  });

  it("does not let a member without can_manage_members remove someone else", async () => {
    const owner = await createAccount();
    const judy = await createAccount();
    const ken = await createAccount();
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, judy.email, {
      can_manage_observatories: true,
      can_manage_projects: true,
      can_manage_storage: true,
      can_manage_billing: true,
    });
    await addMember(owner, organization.id, ken.email);
    await expectRefusal(removeMember(judy, organization.id, ken.id), 403, "FORBIDDEN");
    expect(await memberOf(owner, organization.id, ken.id)).toBeDefined();
  });
});

describe("organizations.transferOwnership (POST /organizations/{id}/transfer-ownership)", () => {
  it("moves ownership to a member; the previous owner stays a member with every permission", async () => {
    const { owner, member: heir, organization } = await organizationWithMember({ can_manage_projects: true });

    const transferred = await transferOwnership(owner, organization.id, { userId: heir.id });
    expect(transferred).toMatchObject({ id: organization.id, name: organization.name, ownerId: heir.id });

    const after = await members(heir, organization.id);
    expect(after.find((member) => member.userId === heir.id)).toMatchObject({ role: "owner", permissions: ALL });
    expect(after.find((member) => member.userId === owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(after).toHaveLength(2);

    // The previous owner may no longer transfer, and may now be removed; the new owner may not.
    await expectRefusal(transferOwnership(owner, organization.id, { userId: owner.id }), 403, "FORBIDDEN");
    await expectRefusal(removeMember(owner, organization.id, heir.id), 409, "OWNER_CANNOT_BE_REMOVED");
    // Ownership returns, and the previous owner's permissions are still all true.
    expect((await transferOwnership(heir, organization.id, { userId: owner.id })).ownerId).toBe(owner.id);
    expect(await memberOf(owner, organization.id, heir.id)).toMatchObject({ role: "member", permissions: ALL });
    await removeMember(owner, organization.id, heir.id);
  });

  it("refuses a user who is not a member with 409 NOT_A_MEMBER, and changes nothing", async () => {
    const owner = await createAccount();
    const outsider = await createAccount();
    const organization = await createOrganization(owner);
    for (const userId of [outsider.id, "usr_doesnotexist"]) {
      await expectRefusal(transferOwnership(owner, organization.id, { userId }), 409, "NOT_A_MEMBER");
    }
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
  });

  it("is for the owner only: 403 for a member with every permission", async () => {
    const owner = await createAccount();
    const manager = await createAccount();
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, manager.email, ALL);
    await expectRefusal(transferOwnership(manager, organization.id, { userId: manager.id }), 403, "FORBIDDEN");
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
  });

  it("refuses an unknown field or a missing userId with 400", async () => {
    const owner = await createAccount();
    const organization = await createOrganization(owner);
    for (const body of [{}, { userId: owner.id, keepOwner: true }, { userId: 42 }, { userId: "usr_\u0000" }]) {
      await expectRefusal(transferOwnership(owner, organization.id, body), 400, "VALIDATION_FAILED");
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
  const waitingOnLocks = () => lockWaiters(sql());
  const stored = (organizationId: string) => sql()<Array<{ userId: string; permissions: Permissions }>>`
    select user_id as "userId", doc->'permissions' as permissions from organization_members where organization_id = ${organizationId} order by created_at`;
  /** Holds a membership row, so that the first write to reach it waits there. */
  const holdMembership = (organizationId: string, userId: string) =>
    holdRows(runtime.databaseUrl, `select id from organization_members where organization_id = '${organizationId}' and user_id = '${userId}' for update`);

  it("never leaves an owner who is not a member: the heir removed during the transfer makes it 409 NOT_A_MEMBER", async () => {
    const { owner, member: heir, organization } = await organizationWithMember();

    // The removal checks the owner, then waits at the heir's membership row; the transfer comes meanwhile.
    const hold = await holdMembership(organization.id, heir.id);
    const [removed, transferred] = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () => answerOf(removeMember(owner, organization.id, heir.id), 204),
      second: () => answerOf(transferOwnership(owner, organization.id, { userId: heir.id }), 200),
    });

    // Serially: the heir is gone, so ownership cannot go to them, and the owner is still a member.
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect((await stored(organization.id)).map((member) => member.userId)).toEqual([owner.id]);
    expect([removed, transferred]).toEqual([
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
      sql: sql(),
      first: () => answerOf(transferOwnership(owner, organization.id, { userId: heir.id }), 200),
      second: () => answerOf(updateMember(owner, organization.id, heir.id, { can_manage_members: false }), 200),
    });

    // The stored permissions of the new owner are still all true, and the change was refused as it is serially.
    expect(await stored(organization.id)).toEqual([
      { userId: owner.id, permissions: ALL },
      { userId: heir.id, permissions: ALL },
    ]);
    expect(transferred).toEqual({ status: 200, code: undefined });
    expect(changed).toEqual({ status: 409, code: "OWNER_PERMISSIONS_FIXED" });
  });

  it("adds no member to an organization being deleted: the addition waits, then answers 404", async () => {
    const owner = await createAccount();
    const newcomer = await createAccount();
    const organization = await createOrganization(owner);

    // The deletion removes the memberships, then waits at the announcements it cancels; the addition comes meanwhile.
    const hold = await holdTable(runtime.databaseUrl, "announcements");
    let deleted: { status: number; code?: string };
    let added: { status: number; code?: string };
    try {
      const deletion = answerOf(owner.caller.organizations.delete({ id: organization.id }), 204);
      await until("the deletion to wait at the announcements", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      let settled = false;
      const addition = answerOf(addMember(owner, organization.id, newcomer.email), 201).finally(() => {
        settled = true;
      });
      // Without the organization's lock the addition would not wait: it would be written and answered at once.
      await until("the addition to wait behind the deletion, or be answered", async () => settled || (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      [deleted, added] = await Promise.all([deletion, addition]);
    } finally {
      await hold.release();
    }

    expect(await stored(organization.id)).toEqual([]);
    expect(deleted).toEqual({ status: 204, code: undefined });
    expect(added).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(await organizationsOf(newcomer)).toEqual([]);
  });
});

describe("what each organization permission grants", () => {
  it("can_manage_billing is stored and grants nothing", async () => {
    const owner = await createAccount();
    const biller = await createAccount();
    const lara = await createAccount();
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, biller.email, { can_manage_billing: true });
    expect((await memberOf(owner, organization.id, biller.id))?.permissions).toEqual({ ...NONE, can_manage_billing: true });

    const { caller } = biller;
    await expectRefusal(addMember(biller, organization.id, lara.email), 403, "FORBIDDEN");
    await expectRefusal(caller.organizations.update({ id: organization.id, update: { externalStorage: [] } }), 403, "FORBIDDEN");
    await expectRefusal(caller.organizations.update({ id: organization.id, update: { description: "billing" } }), 403, "FORBIDDEN");
    await expectRefusal(caller.observatories.create({ name: "Billed", organizationId: organization.id }), 403, "FORBIDDEN");
    await expectRefusal(caller.projects.create({ name: "Billed", organizationId: organization.id }), 403, "FORBIDDEN");
    await expectRefusal(caller.organizations.audit({ id: organization.id }), 403, "FORBIDDEN");
  });

  it("can_manage_observatories lets a member create an observatory the organization owns", async () => {
    const { member: manager, organization } = await organizationWithMember({ can_manage_observatories: true });
    const created = await manager.caller.observatories.create({ name: "Anderson Mesa", organizationId: organization.id });
    expect(created).toMatchObject({ name: "Anderson Mesa", owner: { kind: "organization", id: organization.id } });
    expect(await manager.caller.observatories.members({ id: created.id })).toEqual({
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
    expect(await manager.caller.observatories.myPermissions({ id: created.id })).toMatchObject({
      can_view: true,
      can_observe: true,
      can_operate: true,
      can_admin: true,
      sources: [{ kind: "organization", organizationId: organization.id, role: "admin" }],
    });
  });

  it("can_manage_projects lets a member create the organization's projects", async () => {
    const { owner, member: manager, organization } = await organizationWithMember({ can_manage_projects: true });
    const created = await manager.caller.projects.create({ name: "Pluto follow-up", organizationId: organization.id });
    expect(created).toMatchObject({ name: "Pluto follow-up", status: "active", ownerId: manager.id, organizationId: organization.id });
    // The organization's owner manages it too.
    expect((await owner.caller.projects.update({ id: created.id, update: { status: "paused" } })).status).toBe("paused");
  });
});

describe("how many members one organization has", () => {
  const CAP = 10_000;
  const stored = async (organizationId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from organization_members where organization_id = ${organizationId}`)[0]!.count;
  /** An organization of `size` members: its owner, one added through the caller, the rest written as copies of that one. */
  const organizationOf = async (owner: Account, size: number) => {
    const organization = await createOrganization(owner);
    const seed = await createAccount();
    await addMember(owner, organization.id, seed.email);
    const membership = { table: "organization_members", scopeColumn: "organization_id", scopeId: organization.id, column: "user_id", field: "userId" };
    await copyMembers(sql(), { userId: seed.id, copies: size - 2, membership });
    return organization;
  };
  const refusal = `The organization has ${CAP} members, the most one may have; one must leave first`;

  it(`refuses a member past ${CAP} with 409 CONFLICT, added or by invitation, stores nothing, and lists every one`, async () => {
    const owner = await createAccount();
    const organization = await organizationOf(owner, CAP - 1);
    await expectMemberCapHeldThroughCaller({
      runtime,
      owner,
      cap: CAP,
      refusal,
      add: (person) => addMember(owner, organization.id, person.email),
      invite: (email) => owner.caller.invitations.organizationCreate({ id: organization.id, invitation: { email } }),
      leave: (member) => removeMember(member, organization.id, member.id),
      stored: () => stored(organization.id),
      listed: async () => (await members(owner, organization.id)).map((member) => member.userId),
      extra: 0,
    });
  });

  it("lets exactly one of two additions at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount();
    const organization = await organizationOf(owner, CAP - 1);
    const [first, second] = [await createAccount(), await createAccount()];
    // Both count under the organization's row: the first waits at it, the second queues behind.
    const hold = await holdRows(runtime.databaseUrl, `select id from organizations where id = '${organization.id}' for update`);
    const answers = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () =>
        addMember(owner, organization.id, first.email).then(
          () => undefined,
          (error: unknown) => error,
        ),
      second: () =>
        addMember(owner, organization.id, second.email).then(
          () => undefined,
          (error: unknown) => error,
        ),
    });
    // One was added, the other refused 409 CONFLICT with the cap's message.
    const refusals = answers.filter((answer) => answer !== undefined);
    expect(refusals).toHaveLength(1);
    expect((await expectRefusal(Promise.reject(refusals[0] as Error), 409, "CONFLICT")).message).toBe(refusal);
    expect(await stored(organization.id)).toBe(CAP);
  });

  it(`refuses a transfer that would put a missing owner back past ${CAP} members with 409 CONFLICT, and takes it once one has left`, async () => {
    const owner = await createAccount();
    const [heir, last] = [await createAccount(), await createAccount()];
    const organization = await organizationOf(owner, CAP - 1);
    await addMember(owner, organization.id, heir.email);
    // An owner without a member row, as data written before owners always were members has it.
    await dropOwnerMembership(organization.id, owner.id);
    await addMember(owner, organization.id, last.email);
    expect(await stored(organization.id)).toBe(CAP);

    const transfer = () => transferOwnership(owner, organization.id, { userId: heir.id });
    expect((await expectRefusal(transfer(), 409, "CONFLICT")).message).toBe(refusal);
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect(await stored(organization.id)).toBe(CAP);

    await removeMember(last, organization.id, last.id);
    expect((await transfer()).ownerId).toBe(heir.id);
    expect(await memberOf(heir, organization.id, owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(await stored(organization.id)).toBe(CAP);
  });
});

const dropOwnerMembership = (organizationId: string, userId: string) =>
  sql()`delete from organization_members where organization_id = ${organizationId} and user_id = ${userId}`;

describe("a transfer whose previous owner belongs to as many organizations as one may", () => {
  const MEMBERSHIPS = 1000;
  const belongsTo = async (userId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from organization_members where user_id = ${userId}`)[0]!.count;

  it("refuses to make a missing owner a member again with 409 CONFLICT, and takes it once they left another", async () => {
    const [owner, heir, host] = [await createAccount(), await createAccount(), await createAccount()];
    const organization = await createOrganization(owner);
    await addMember(owner, organization.id, heir.email);
    await dropOwnerMembership(organization.id, owner.id);
    // The owner belongs to MEMBERSHIPS others: one joined through the caller, the rest copies of it.
    const joined = await createOrganization(host);
    await addMember(host, joined.id, owner.email);
    const [row] = await sql()<Array<{ id: string }>>`select id from organization_members where organization_id = ${joined.id} and user_id = ${owner.id}`;
    await copyRow(sql(), { table: "organizations", id: joined.id, copies: MEMBERSHIPS - 1, vary: { column: "short_name_lower", field: "shortName" } });
    await copyRow(sql(), { table: "organization_members", id: row!.id, copies: MEMBERSHIPS - 1, vary: { column: "organization_id", field: "organizationId" } });
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);

    const transfer = () => transferOwnership(owner, organization.id, { userId: heir.id });
    expect((await expectRefusal(transfer(), 409, "CONFLICT")).message).toBe(
      `The account already belongs to ${MEMBERSHIPS} organizations, the most one may; it must leave one first`,
    );
    expect(await ownerIdOf(owner, organization.id)).toBe(owner.id);
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);

    await removeMember(owner, joined.id, owner.id);
    expect((await transfer()).ownerId).toBe(heir.id);
    expect(await memberOf(heir, organization.id, owner.id)).toMatchObject({ role: "member", permissions: ALL });
    expect(await belongsTo(owner.id)).toBe(MEMBERSHIPS);
  });
});
