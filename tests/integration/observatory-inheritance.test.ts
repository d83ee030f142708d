import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createObservatoryAs,
  createOrganizationAs,
  expectRefusal,
  refusalOf,
  startTestRuntime,
  type CallerAccount,
  type TestRuntime,
} from "../support/test-runtime";

// The domain's rules of inherited permissions, through the app router's caller: no HTTP.
let runtime: TestRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());
type Account = CallerAccount;
const createAccount = () => runtime.signup();

type Permissions = { can_view: boolean; can_observe: boolean; can_operate: boolean; can_admin: boolean };
/** "vopa" names can_view, can_observe, can_operate (p) and can_admin; "" is nothing at all. */
const perms = (letters: string): Permissions => ({
  can_view: letters.includes("v"),
  can_observe: letters.includes("o"),
  can_operate: letters.includes("p"),
  can_admin: letters.includes("a"),
});

const createOrganization = (owner: Account) => createOrganizationAs(owner);
const createObservatory = (owner: Account) => createObservatoryAs(owner);
const addOrganizationMember = (owner: Account, id: string, member: Account, permissions?: Record<string, boolean>) =>
  owner.caller.organizations.addMember({ id, email: member.email, permissions });
const addObservatoryMember = (as: Account, id: string, member: Account, permissions?: Record<string, boolean>) =>
  as.caller.observatories.addUser({ id, email: member.email, permissions });
const addObservatoryOrganization = (as: Account, id: string, organizationId: string, permissions?: Record<string, boolean>) =>
  as.caller.observatories.addOrganization({ id, organizationId, permissions });

/** The caller's effective permissions, or null when the observatory does not exist for them (404). */
const effective = async (as: Account, observatoryId: string): Promise<Permissions | null> => {
  const answer = await as.caller.observatories.myPermissions({ id: observatoryId }).catch(async (error: unknown) => {
    const refusal = await refusalOf(Promise.reject(error as Error));
    expect({ status: refusal.status, code: refusal.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    return null;
  });
  if (answer === null) return null;
  const { can_view, can_observe, can_operate, can_admin } = answer;
  return { can_view, can_observe, can_operate, can_admin };
};

/**
 * The spec's table (owners and admins inherit can_admin + can_operate, regular members can_view +
 * can_observe), permissions ordered (can_admin ⇒ can_operate ⇒ can_observe ⇒ can_view), capped by
 * the organization's grant on the observatory. Written out cell by cell, not computed.
 */
const roles = ["owner", "adminByMembers", "adminByObservatories", "regular", "regularWithOtherPermissions"] as const;
const rolePermissions: Record<(typeof roles)[number], Record<string, boolean> | null> = {
  owner: null,
  adminByMembers: { can_manage_members: true },
  adminByObservatories: { can_manage_observatories: true },
  regular: {},
  regularWithOtherPermissions: { can_manage_projects: true, can_manage_storage: true, can_manage_billing: true },
};
const grants = {
  can_view: "v",
  "can_view + can_observe": "vo",
  "can_operate alone": "p",
  "can_admin alone": "a",
  "all four": "vopa",
  none: "",
} as const;
const expected: Record<keyof typeof grants, Record<(typeof roles)[number], string | null>> = {
  can_view: { owner: "v", adminByMembers: "v", adminByObservatories: "v", regular: "v", regularWithOtherPermissions: "v" },
  "can_view + can_observe": { owner: "vo", adminByMembers: "vo", adminByObservatories: "vo", regular: "vo", regularWithOtherPermissions: "vo" },
  "can_operate alone": { owner: "vop", adminByMembers: "vop", adminByObservatories: "vop", regular: "vo", regularWithOtherPermissions: "vo" },
  "can_admin alone": { owner: "vopa", adminByMembers: "vopa", adminByObservatories: "vopa", regular: "vo", regularWithOtherPermissions: "vo" },
  "all four": { owner: "vopa", adminByMembers: "vopa", adminByObservatories: "vopa", regular: "vo", regularWithOtherPermissions: "vo" },
  none: { owner: null, adminByMembers: null, adminByObservatories: null, regular: null, regularWithOtherPermissions: null },
};

describe("observatory permissions inherited through an organization", () => {
  let users: Record<(typeof roles)[number], Account>;
  let observatoryOwner: Account;
  const observatoryByGrant = {} as Record<keyof typeof grants, string>;

  beforeAll(async () => {
    observatoryOwner = await createAccount();
    const accounts = await Promise.all(roles.map(() => createAccount()));
    users = Object.fromEntries(roles.map((role, index) => [role, accounts[index]!])) as typeof users;
    const organization = await createOrganization(users.owner);
    for (const role of roles) {
      const permissions = rolePermissions[role];
      if (permissions) await addOrganizationMember(users.owner, organization.id, users[role], permissions);
    }
    for (const [label, letters] of Object.entries(grants) as Array<[keyof typeof grants, string]>) {
      const observatory = await createObservatory(observatoryOwner);
      await addObservatoryOrganization(observatoryOwner, observatory.id, organization.id, perms(letters));
      observatoryByGrant[label] = observatory.id;
    }
  });

  const cells = (Object.keys(grants) as Array<keyof typeof grants>).flatMap((label) => roles.map((role) => [label, role, expected[label][role]] as const));
  it.each(cells)("grant %s, role %s → %s", async (label, role, letters) => {
    const observatoryId = observatoryByGrant[label];
    const user = users[role];
    const mine = await effective(user, observatoryId);
    expect(mine).toEqual(letters === null ? null : perms(letters));

    // The same answer everywhere the permissions show: the list, the observatory, and what the caller may do.
    const list = (await user.caller.observatories.list({})).items;
    const listed = list.find((item) => item.id === observatoryId);
    if (letters === null) {
      expect(listed).toBeUndefined();
      await expectRefusal(user.caller.observatories.get({ id: observatoryId }), 404, "NOT_FOUND");
      await expectRefusal(user.caller.observatories.members({ id: observatoryId }), 404, "NOT_FOUND");
    } else {
      expect(listed?.myPermissions).toEqual(perms(letters));
      expect((await user.caller.observatories.get({ id: observatoryId })).myPermissions).toEqual(perms(letters));
      // can_admin: may change the organization's own grant (to the same value); without it 403.
      const { organizations } = await user.caller.observatories.members({ id: observatoryId });
      const change = user.caller.observatories.updateOrganization({
        id: observatoryId,
        orgId: organizations[0]!.organizationId,
        permissions: perms(grants[label]),
      });
      if (letters.includes("a")) await change;
      else await expectRefusal(change, 403, "FORBIDDEN");
    }
  });

  it("names the organization and the role as the source", async () => {
    const sources = (await users.adminByObservatories.caller.observatories.myPermissions({ id: observatoryByGrant["all four"] })).sources;
    expect(sources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "admin", permissions: perms("vopa") }]);
    const ownerSources = (await users.owner.caller.observatories.myPermissions({ id: observatoryByGrant["can_operate alone"] })).sources;
    expect(ownerSources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "owner", permissions: perms("vop") }]);
    const regularSources = (await users.regularWithOtherPermissions.caller.observatories.myPermissions({ id: observatoryByGrant["all four"] })).sources;
    expect(regularSources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "member", permissions: perms("vo") }]);
  });
});

describe("several sources combine by union", () => {
  it("adds direct grants and the grants of several organizations", async () => {
    const owner = await createAccount();
    const firstOwner = await createAccount();
    const secondOwner = await createAccount();
    const user = await createAccount();
    const first = await createOrganization(firstOwner);
    const second = await createOrganization(secondOwner);
    await addOrganizationMember(firstOwner, first.id, user, {});
    await addOrganizationMember(secondOwner, second.id, user, { can_manage_members: true });
    const observatory = await createObservatory(owner);

    // Regular in the first (grant: all four) → can_view + can_observe.
    await addObservatoryOrganization(owner, observatory.id, first.id, perms("vopa"));
    expect(await effective(user, observatory.id)).toEqual(perms("vo"));
    // Admin in the second (grant: can_operate) → up to can_operate; union with the first.
    await addObservatoryOrganization(owner, observatory.id, second.id, perms("p"));
    expect(await effective(user, observatory.id)).toEqual(perms("vop"));
    const sources = (await user.caller.observatories.myPermissions({ id: observatory.id })).sources;
    expect(sources).toEqual(
      expect.arrayContaining([
        { kind: "organization", organizationId: first.id, role: "member", permissions: perms("vo") },
        { kind: "organization", organizationId: second.id, role: "admin", permissions: perms("vop") },
      ]),
    );
    // A direct can_admin on top gives everything.
    await addObservatoryMember(owner, observatory.id, user, { can_view: false, can_admin: true });
    expect(await effective(user, observatory.id)).toEqual(perms("vopa"));
  });
});

describe("changes of organization membership take effect on the next request", () => {
  it("loses access when removed from the organization, and regains it when added back", async () => {
    const owner = await createAccount();
    const orgOwner = await createAccount();
    const member = await createAccount();
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, member, {});
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vo"));
    expect(await effective(member, observatory.id)).toEqual(perms("vo"));

    await orgOwner.caller.organizations.removeMember({ id: organization.id, userId: member.id });
    expect(await effective(member, observatory.id)).toBeNull();
    await expectRefusal(member.caller.observatories.history({ id: observatory.id }), 404, "NOT_FOUND");
    expect((await member.caller.observatories.list({})).items).toEqual([]);

    await addOrganizationMember(orgOwner, organization.id, member, {});
    expect(await effective(member, observatory.id)).toEqual(perms("vo"));
  });

  it("loses access when the organization is removed from the observatory", async () => {
    const owner = await createAccount();
    const orgOwner = await createAccount();
    const admin = await createAccount();
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, admin, { can_manage_observatories: true });
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    expect(await effective(admin, observatory.id)).toEqual(perms("vopa"));
    expect(await effective(orgOwner, observatory.id)).toEqual(perms("vopa"));

    await owner.caller.observatories.removeOrganization({ id: observatory.id, orgId: organization.id });
    expect(await effective(admin, observatory.id)).toBeNull();
    expect(await effective(orgOwner, observatory.id)).toBeNull();
    expect((await admin.caller.observatories.list({})).items).toEqual([]);
  });

  it("drops inherited can_admin as soon as the member is no longer an organization admin", async () => {
    const owner = await createAccount();
    const orgOwner = await createAccount();
    const admin = await createAccount();
    const newcomer = await createAccount();
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, admin, { can_manage_members: true });
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    await addObservatoryMember(admin, observatory.id, newcomer);

    await orgOwner.caller.organizations.updateMember({ id: organization.id, userId: admin.id, permissions: { can_manage_members: false } });
    expect(await effective(admin, observatory.id)).toEqual(perms("vo"));
    await expectRefusal(admin.caller.observatories.removeUser({ id: observatory.id, userId: newcomer.id }), 403, "FORBIDDEN");
  });

  it("follows organization ownership: the new owner inherits as owner, the previous one as admin", async () => {
    const owner = await createAccount();
    const orgOwner = await createAccount();
    const heir = await createAccount();
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, heir, {});
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    expect(await effective(heir, observatory.id)).toEqual(perms("vo"));

    await orgOwner.caller.organizations.transferOwnership({ id: organization.id, userId: heir.id });
    const heirSources = (await heir.caller.observatories.myPermissions({ id: observatory.id })).sources;
    expect(heirSources).toEqual([{ kind: "organization", organizationId: organization.id, role: "owner", permissions: perms("vopa") }]);
    const previousSources = (await orgOwner.caller.observatories.myPermissions({ id: observatory.id })).sources;
    expect(previousSources).toEqual([{ kind: "organization", organizationId: organization.id, role: "admin", permissions: perms("vopa") }]);
  });
});
