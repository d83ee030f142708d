import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
});
afterAll(() => server?.stop());

type Permissions = { can_view: boolean; can_observe: boolean; can_operate: boolean; can_admin: boolean };
/** "vopa" names can_view, can_observe, can_operate (p) and can_admin; "" is nothing at all. */
const perms = (letters: string): Permissions => ({
  can_view: letters.includes("v"),
  can_observe: letters.includes("o"),
  can_operate: letters.includes("p"),
  can_admin: letters.includes("a"),
});

const { must, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(() => server);

/** The caller's effective permissions, or null when the observatory does not exist for them (404). */
const effective = async (token: string, observatoryId: string): Promise<Permissions | null> => {
  const response = await server.request(`/observatories/${observatoryId}/permissions/me`, { token });
  if (response.status === 404) {
    await expectProblem(response, 404, "NOT_FOUND");
    return null;
  }
  expect(response.status).toBe(200);
  const { can_view, can_observe, can_operate, can_admin } = (await response.json()) as Permissions;
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
    observatoryOwner = await createAccount(server);
    const accounts = await Promise.all(roles.map(() => createAccount(server)));
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
    const token = users[role].token;
    const mine = await effective(token, observatoryId);
    expect(mine).toEqual(letters === null ? null : perms(letters));

    // The same answer everywhere the permissions show: the list, the observatory, and what the caller may do.
    const list = (await must("/observatories", { token }, 200)).items as Array<{ id: string; myPermissions: Permissions }>;
    const listed = list.find((item) => item.id === observatoryId);
    if (letters === null) {
      expect(listed).toBeUndefined();
      await expectProblem(await server.request(`/observatories/${observatoryId}`, { token }), 404, "NOT_FOUND");
      await expectProblem(await server.request(`/observatories/${observatoryId}/members`, { token }), 404, "NOT_FOUND");
    } else {
      expect(listed?.myPermissions).toEqual(perms(letters));
      expect((await must(`/observatories/${observatoryId}`, { token }, 200)).myPermissions).toEqual(perms(letters));
      // can_admin: may change the organization's own grant (to the same value); without it 403.
      const { organizations } = await must(`/observatories/${observatoryId}/members`, { token }, 200);
      const change = await server.request(`/observatories/${observatoryId}/members/organization/${organizations[0].organizationId}`, {
        method: "PUT",
        token,
        json: { permissions: perms(grants[label]) },
      });
      if (letters.includes("a")) expect(change.status).toBe(200);
      else await expectProblem(change, 403, "FORBIDDEN");
    }
  });

  it("names the organization and the role as the source", async () => {
    const sources = (await must(`/observatories/${observatoryByGrant["all four"]}/permissions/me`, { token: users.adminByObservatories.token }, 200)).sources;
    expect(sources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "admin", permissions: perms("vopa") }]);
    const ownerSources = (await must(`/observatories/${observatoryByGrant["can_operate alone"]}/permissions/me`, { token: users.owner.token }, 200)).sources;
    expect(ownerSources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "owner", permissions: perms("vop") }]);
    const regularSources = (
      await must(`/observatories/${observatoryByGrant["all four"]}/permissions/me`, { token: users.regularWithOtherPermissions.token }, 200)
    ).sources;
    expect(regularSources).toEqual([{ kind: "organization", organizationId: expect.any(String), role: "member", permissions: perms("vo") }]);
  });
});

describe("several sources combine by union", () => {
  it("adds direct grants and the grants of several organizations", async () => {
    const owner = await createAccount(server);
    const firstOwner = await createAccount(server);
    const secondOwner = await createAccount(server);
    const user = await createAccount(server);
    const first = await createOrganization(firstOwner);
    const second = await createOrganization(secondOwner);
    await addOrganizationMember(firstOwner, first.id, user, {});
    await addOrganizationMember(secondOwner, second.id, user, { can_manage_members: true });
    const observatory = await createObservatory(owner);

    // Regular in the first (grant: all four) → can_view + can_observe.
    await addObservatoryOrganization(owner, observatory.id, first.id, perms("vopa"));
    expect(await effective(user.token, observatory.id)).toEqual(perms("vo"));
    // Admin in the second (grant: can_operate) → up to can_operate; union with the first.
    await addObservatoryOrganization(owner, observatory.id, second.id, perms("p"));
    expect(await effective(user.token, observatory.id)).toEqual(perms("vop"));
    const sources = (await must(`/observatories/${observatory.id}/permissions/me`, { token: user.token }, 200)).sources;
    expect(sources).toEqual(
      expect.arrayContaining([
        { kind: "organization", organizationId: first.id, role: "member", permissions: perms("vo") },
        { kind: "organization", organizationId: second.id, role: "admin", permissions: perms("vop") },
      ]),
    );
    // A direct can_admin on top gives everything.
    await addObservatoryMember(owner, observatory.id, user, { can_view: false, can_admin: true });
    expect(await effective(user.token, observatory.id)).toEqual(perms("vopa"));
  });
});

describe("changes of organization membership take effect on the next request", () => {
  it("loses access when removed from the organization, and regains it when added back", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const member = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, member, {});
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vo"));
    expect(await effective(member.token, observatory.id)).toEqual(perms("vo"));

    await must(`/organizations/${organization.id}/members/${member.id}`, { method: "DELETE", token: orgOwner.token }, 204);
    expect(await effective(member.token, observatory.id)).toBeNull();
    await expectProblem(await server.request(`/observatories/${observatory.id}/history`, { token: member.token }), 404, "NOT_FOUND");
    expect((await must("/observatories", { token: member.token }, 200)).items).toEqual([]);

    await addOrganizationMember(orgOwner, organization.id, member, {});
    expect(await effective(member.token, observatory.id)).toEqual(perms("vo"));
  });

  it("loses access when the organization is removed from the observatory", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const admin = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, admin, { can_manage_observatories: true });
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    expect(await effective(admin.token, observatory.id)).toEqual(perms("vopa"));
    expect(await effective(orgOwner.token, observatory.id)).toEqual(perms("vopa"));

    await must(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: owner.token }, 204);
    expect(await effective(admin.token, observatory.id)).toBeNull();
    expect(await effective(orgOwner.token, observatory.id)).toBeNull();
    expect((await must("/observatories", { token: admin.token }, 200)).items).toEqual([]);
  });

  it("drops inherited can_admin as soon as the member is no longer an organization admin", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const admin = await createAccount(server);
    const newcomer = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, admin, { can_manage_members: true });
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    await addObservatoryMember(admin, observatory.id, newcomer);

    await must(
      `/organizations/${organization.id}/members/${admin.id}`,
      { method: "PUT", token: orgOwner.token, json: { permissions: { can_manage_members: false } } },
      200,
    );
    expect(await effective(admin.token, observatory.id)).toEqual(perms("vo"));
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${newcomer.id}`, { method: "DELETE", token: admin.token }),
      403,
      "FORBIDDEN",
    );
  });

  it("follows organization ownership: the new owner inherits as owner, the previous one as admin", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const heir = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, heir, {});
    const observatory = await createObservatory(owner);
    await addObservatoryOrganization(owner, observatory.id, organization.id, perms("vopa"));
    expect(await effective(heir.token, observatory.id)).toEqual(perms("vo"));

    await must(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: orgOwner.token, json: { userId: heir.id } }, 200);
    const heirSources = (await must(`/observatories/${observatory.id}/permissions/me`, { token: heir.token }, 200)).sources;
    expect(heirSources).toEqual([{ kind: "organization", organizationId: organization.id, role: "owner", permissions: perms("vopa") }]);
    const previousSources = (await must(`/observatories/${observatory.id}/permissions/me`, { token: orgOwner.token }, 200)).sources;
    expect(previousSources).toEqual([{ kind: "organization", organizationId: organization.id, role: "admin", permissions: perms("vopa") }]);
  });
});
