import type { Executor, ObservatoryPermissions, OrganizationPermissions } from "@meridian/db";
import { describe, expect, it } from "vitest";
import { closePermissions } from "@meridian/rules";
import { inheritedFromOrganizationRole, organizationRole, requireObservatoryPermission, resolveObservatoryAccess } from "./observatory-permissions";
import type { UserActor } from "../../platform/actor";

/** "vopa": can_view, can_observe, can_operate (p), can_admin. */
const p = (letters: string): ObservatoryPermissions => ({
  can_view: letters.includes("v"),
  can_observe: letters.includes("o"),
  can_operate: letters.includes("p"),
  can_admin: letters.includes("a"),
});
const letters = (permissions: ObservatoryPermissions) =>
  `${permissions.can_view ? "v" : ""}${permissions.can_observe ? "o" : ""}${permissions.can_operate ? "p" : ""}${permissions.can_admin ? "a" : ""}`;
const usr1: UserActor = { kind: "user", id: "usr_1", name: "One", email: "one@example.com", isServerAdmin: false };
const org = (granted: Partial<OrganizationPermissions>): OrganizationPermissions => ({
  can_manage_members: false,
  can_manage_observatories: false,
  can_manage_projects: false,
  can_manage_billing: false,
  can_manage_storage: false,
  ...granted,
});

describe("closePermissions", () => {
  // Every one of the 16 combinations, written out: each permission brings all those below it.
  it.each([
    ["", ""],
    ["v", "v"],
    ["o", "vo"],
    ["vo", "vo"],
    ["p", "vop"],
    ["vp", "vop"],
    ["op", "vop"],
    ["vop", "vop"],
    ["a", "vopa"],
    ["va", "vopa"],
    ["oa", "vopa"],
    ["voa", "vopa"],
    ["pa", "vopa"],
    ["vpa", "vopa"],
    ["opa", "vopa"],
    ["vopa", "vopa"],
  ])("closes %j to %j", (given, closed) => {
    expect(letters(closePermissions(p(given)))).toBe(closed);
  });

  it("does not change its argument", () => {
    const given = p("a");
    closePermissions(given);
    expect(given).toEqual(p("a"));
  });
});

describe("inheritedFromOrganizationRole", () => {
  it("gives owners and admins can_admin + can_operate, regular members can_view + can_observe (the spec's table)", () => {
    expect(inheritedFromOrganizationRole("owner")).toMatchObject({ can_admin: true, can_operate: true });
    expect(inheritedFromOrganizationRole("admin")).toMatchObject({ can_admin: true, can_operate: true });
    expect(inheritedFromOrganizationRole("member")).toEqual(p("vo"));
    // Closed, an owner's or admin's inheritance is everything.
    expect(closePermissions(inheritedFromOrganizationRole("owner"))).toEqual(p("vopa"));
    expect(closePermissions(inheritedFromOrganizationRole("admin"))).toEqual(p("vopa"));
  });
});

describe("organizationRole", () => {
  it("is owner for the owner whatever the stored permissions", () => {
    expect(organizationRole({ isOwner: true, permissions: org({}) })).toBe("owner");
  });

  it.each([
    [{ can_manage_members: true }, "admin"],
    [{ can_manage_observatories: true }, "admin"],
    [{ can_manage_members: true, can_manage_observatories: true }, "admin"],
    [{}, "member"],
    [{ can_manage_projects: true }, "member"],
    [{ can_manage_storage: true }, "member"],
    [{ can_manage_billing: true }, "member"],
    [{ can_manage_projects: true, can_manage_storage: true, can_manage_billing: true }, "member"],
  ] as const)("makes %j an %s", (granted, role) => {
    expect(organizationRole({ isOwner: false, permissions: org(granted) })).toBe(role);
  });
});

type Row = {
  observatory_id: string;
  source: "owner" | "direct" | "organization" | "exists";
  grant: ObservatoryPermissions | null;
  organization_id: string | null;
  org_owner: boolean | null;
  member_permissions: OrganizationPermissions | null;
};
/** An executor that answers the one access query with the given rows (the SQL itself is covered by the integration tests). */
const fakeDb = (rows: Row[]) => {
  let queries = 0;
  const db = {
    execute: async () => {
      queries += 1;
      return rows;
    },
  } as unknown as Executor;
  return { db, queries: () => queries };
};
const viaOrganization = (observatory: string, grant: string, organization: string, owner: boolean, permissions: Partial<OrganizationPermissions>): Row => ({
  observatory_id: observatory,
  source: "organization",
  grant: p(grant),
  organization_id: organization,
  org_owner: owner,
  member_permissions: org(permissions),
});

describe("resolveObservatoryAccess", () => {
  it("caps what the role inherits by the organization's grant, both closed first", async () => {
    const { db } = fakeDb([
      viaOrganization("obs_1", "a", "org_1", false, {}), // member, grant can_admin alone → vo
      viaOrganization("obs_2", "p", "org_1", false, { can_manage_members: true }), // admin, grant can_operate → vop
      viaOrganization("obs_3", "vo", "org_1", true, {}), // owner, grant view+observe → vo
      viaOrganization("obs_4", "", "org_1", true, {}), // owner, no grant → nothing
    ]);
    const access = await resolveObservatoryAccess({ db, userId: "usr_1", isServerAdmin: false, observatoryIds: ["obs_1", "obs_2", "obs_3", "obs_4"] });
    expect(letters(access.get("obs_1")!)).toBe("vo");
    expect(letters(access.get("obs_2")!)).toBe("vop");
    expect(letters(access.get("obs_3")!)).toBe("vo");
    expect(access.get("obs_4") && letters(access.get("obs_4")!)).toBe("");
    expect(access.get("obs_2")!.sources).toEqual([{ kind: "organization", organizationId: "org_1", role: "admin", permissions: p("vop") }]);
  });

  it("unites direct grants, ownership and several organizations, in one query for any number of observatories", async () => {
    const { db, queries } = fakeDb([
      { observatory_id: "obs_1", source: "direct", grant: p("o"), organization_id: null, org_owner: null, member_permissions: null },
      viaOrganization("obs_1", "vopa", "org_1", false, {}),
      viaOrganization("obs_1", "p", "org_2", false, { can_manage_observatories: true }),
      { observatory_id: "obs_2", source: "owner", grant: null, organization_id: null, org_owner: null, member_permissions: null },
    ]);
    const access = await resolveObservatoryAccess({ db, userId: "usr_1", isServerAdmin: false, observatoryIds: ["obs_1", "obs_2", "obs_3"] });
    expect(queries()).toBe(1);
    expect(letters(access.get("obs_1")!)).toBe("vop");
    expect(access.get("obs_1")!.sources.map((source) => source.kind)).toEqual(["direct", "organization", "organization"]);
    expect(access.get("obs_1")!.sources[0]).toEqual({ kind: "direct", permissions: p("vo") });
    expect(access.get("obs_2")).toEqual({ ...p("vopa"), sources: [{ kind: "owner", permissions: p("vopa") }] });
    expect(access.has("obs_3")).toBe(false);
  });

  it("gives a server admin everything on every observatory asked about that exists, with the serverAdmin source first", async () => {
    const exists = (id: string): Row => ({
      observatory_id: id,
      source: "exists",
      grant: null,
      organization_id: null,
      org_owner: null,
      member_permissions: null,
    });
    const { db } = fakeDb([viaOrganization("obs_1", "v", "org_1", false, {}), exists("obs_1"), exists("obs_2")]);
    const access = await resolveObservatoryAccess({ db, userId: "usr_admin", isServerAdmin: true, observatoryIds: ["obs_1", "obs_2", "obs_gone"] });
    expect(access.has("obs_gone")).toBe(false);
    expect(access.get("obs_1")).toEqual({
      ...p("vopa"),
      sources: [
        { kind: "serverAdmin", permissions: p("vopa") },
        { kind: "organization", organizationId: "org_1", role: "member", permissions: p("v") },
      ],
    });
    expect(access.get("obs_2")).toEqual({ ...p("vopa"), sources: [{ kind: "serverAdmin", permissions: p("vopa") }] });
  });

  it("asks nothing for an empty list of observatories", async () => {
    const { db, queries } = fakeDb([]);
    expect((await resolveObservatoryAccess({ db, userId: "usr_1", isServerAdmin: false, observatoryIds: [] })).size).toBe(0);
    expect(queries()).toBe(0);
  });
});

describe("requireObservatoryPermission", () => {
  it("answers NOT_FOUND without can_view and FORBIDDEN without the permission asked for", async () => {
    const hidden = fakeDb([viaOrganization("obs_1", "", "org_1", true, {})]).db;
    await expect(requireObservatoryPermission({ db: hidden, actor: usr1, observatoryId: "obs_1", permission: "can_view" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      status: 404,
    });
    const viewer = fakeDb([viaOrganization("obs_1", "vopa", "org_1", false, {})]).db;
    await expect(requireObservatoryPermission({ db: viewer, actor: usr1, observatoryId: "obs_1", permission: "can_operate" })).rejects.toMatchObject({
      code: "FORBIDDEN",
      status: 403,
    });
    await expect(requireObservatoryPermission({ db: viewer, actor: usr1, observatoryId: "obs_1", permission: "can_observe" })).resolves.toMatchObject(p("vo"));
  });
});
