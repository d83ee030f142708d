import { describe, expect, it } from "vitest";
import { expectProblem } from "../support/auth-suite";
import { answered, describeAccessSuite, missingId, useAccessScenario, type Role, type Scenario, type SignedInRole } from "../support/access-suite";

/**
 * Who may do what with observatory X's, organization A's and project P's announcements, on every
 * path of the contract (and the recipient preview). Readers of GET …/motd are everyone who sees
 * the object; senders are the contract's; everyone else who sees it gets 403, outsiders 404.
 */

const get = useAccessScenario();

type Kind = "observatory" | "organization" | "project";
const plural: Record<Kind, string> = { observatory: "observatories", organization: "organizations", project: "projects" };
type Refusals = ReadonlyArray<readonly [SignedInRole, 403 | 404]>;

interface ScopeRoles {
  base: (s: Scenario) => string;
  missingBase: () => string;
  /** Creates the scope's announcements in the fixtures below; a recipient. */
  creator: SignedInRole;
  senders: SignedInRole[];
  /** See the object, may not send. */
  readers: SignedInRole[];
  /** Do not see the object: 404. */
  outsiders: SignedInRole[];
  /** Receive its announcements (resolved at creation, from the scenario). */
  recipients: SignedInRole[];
  /** See the object without being recipients. */
  nonRecipientReaders: SignedInRole[];
}

const orgA: SignedInRole[] = [
  "orgOwner",
  "orgMember",
  "orgMembersManager",
  "orgObservatoriesManager",
  "orgProjectsManager",
  "orgStorageManager",
  "orgBillingManager",
  "orgTarget",
];

const scopes: Record<Kind, ScopeRoles> = {
  // X is obsOwner's; obsViewer (can_view) and obsDirectAdmin (can_admin) are direct members;
  // organization A is a member with view + observe, so A's owner and managers only view X.
  observatory: {
    base: (s) => `/observatories/${s.observatoryId}`,
    missingBase: () => `/observatories/${missingId("obs")}`,
    creator: "obsOwner",
    senders: ["obsOwner", "obsDirectAdmin", "serverAdmin"],
    readers: ["obsViewer", ...orgA],
    outsiders: ["stranger", "otherOrgOwner", "projectAdmin", "projectMember"],
    recipients: ["obsOwner", "obsDirectAdmin", "obsViewer", ...orgA],
    nonRecipientReaders: ["serverAdmin"],
  },
  organization: {
    base: (s) => `/organizations/${s.organizationId}`,
    missingBase: () => `/organizations/${missingId("org")}`,
    creator: "orgOwner",
    senders: ["orgOwner", "orgMembersManager", "orgObservatoriesManager", "serverAdmin"],
    readers: ["orgMember", "orgProjectsManager", "orgStorageManager", "orgBillingManager", "orgTarget"],
    outsiders: ["stranger", "otherOrgOwner", "obsOwner", "obsViewer", "obsDirectAdmin", "projectAdmin", "projectMember"],
    recipients: orgA,
    nonRecipientReaders: ["serverAdmin"],
  },
  // P is organization A's, owned by orgOwner; A's projects manager sees it without belonging to it.
  project: {
    base: (s) => `/projects/${s.projectId}`,
    missingBase: () => `/projects/${missingId("prj")}`,
    creator: "orgOwner",
    senders: ["orgOwner", "projectAdmin", "serverAdmin"],
    readers: ["projectMember", "orgProjectsManager"],
    outsiders: ["stranger", "otherOrgOwner", "orgMember", "orgMembersManager", "obsOwner"],
    recipients: ["orgOwner", "projectAdmin", "projectMember"],
    nonRecipientReaders: ["serverAdmin", "orgProjectsManager"],
  },
};

const body = { title: "Access check", message: "Who may send this?", severity: "info", deliveryType: "message" };

/** One shared announcement per scope (created on first use), for refused attempts and reads. */
const shared = new Map<Kind, Promise<string>>();
const fixtureOf = (kind: Kind, s: Scenario) => {
  let id = shared.get(kind);
  if (!id) {
    id = s.ok<{ id: string }>(scopes[kind].creator, { method: "POST", path: `${scopes[kind].base(s)}/motd`, json: body }).then((created) => created.id);
    shared.set(kind, id);
  }
  return id;
};
/** A new announcement of the scope, for a success that would change the shared one. */
const freshOf = async (kind: Kind, s: Scenario) =>
  (await s.ok<{ id: string }>(scopes[kind].creator, { method: "POST", path: `${scopes[kind].base(s)}/motd`, json: body })).id;
/** The shared announcement as its creator sees it in the history: refusals must not change it. */
const probeOf = (kind: Kind) => async (s: Scenario) => {
  const id = await fixtureOf(kind, s);
  const { items } = await s.ok<{ items: Array<{ id: string }> }>(scopes[kind].creator, { path: `${scopes[kind].base(s)}/motd/history` });
  return items.find((item) => item.id === id);
};

const refusedFor = (roles: ScopeRoles, options: { readersStatus: 403 | 404 }): Refusals => [
  ...roles.outsiders.map((role) => [role, 404] as const),
  ...roles.readers.map((role) => [role, options.readersStatus] as const),
];

for (const kind of ["observatory", "organization", "project"] as const) {
  const roles = scopes[kind];
  const base = roles.base;
  const senderOnly = refusedFor(roles, { readersStatus: 403 });

  describeAccessSuite(get, {
    method: "POST",
    path: `/${plural[kind]}/{id}/motd`,
    request: (s) => ({ path: `${base(s)}/motd`, json: body }),
    allowed: answered(201, roles.senders),
    refused: senderOnly,
    probe: async (s) => (await s.ok<{ items: unknown[] }>(roles.creator, { path: `${base(s)}/motd/history` })).items.length,
    missing: () => ({ path: `${roles.missingBase()}/motd`, json: body }),
  });

  describeAccessSuite(get, {
    method: "GET",
    path: `/${plural[kind]}/{id}/motd`,
    request: async (s) => {
      await fixtureOf(kind, s);
      return { path: `${base(s)}/motd` };
    },
    allowed: answered(200, [...roles.senders, ...roles.readers]),
    refused: roles.outsiders.map((role) => [role, 404] as const),
    missing: () => ({ path: `${roles.missingBase()}/motd` }),
  });

  describeAccessSuite(get, {
    method: "GET",
    path: `/${plural[kind]}/{id}/motd/history`,
    request: (s) => ({ path: `${base(s)}/motd/history?status=active` }),
    allowed: answered(200, roles.senders),
    refused: senderOnly,
    missing: () => ({ path: `${roles.missingBase()}/motd/history` }),
  });

  describeAccessSuite(get, {
    method: "GET",
    path: `/${plural[kind]}/{id}/motd/preview`,
    request: (s) => ({ path: `${base(s)}/motd/preview` }),
    allowed: answered(200, roles.senders),
    refused: senderOnly,
    missing: () => ({ path: `${roles.missingBase()}/motd/preview` }),
  });

  describeAccessSuite(get, {
    method: "GET",
    path: `/${plural[kind]}/{id}/motd/{motdId}/recipients`,
    request: async (s) => ({ path: `${base(s)}/motd/${await fixtureOf(kind, s)}/recipients` }),
    allowed: answered(200, roles.senders),
    refused: senderOnly,
    missing: async (s) => ({ path: `${roles.missingBase()}/motd/${await fixtureOf(kind, s)}/recipients` }),
  });

  describeAccessSuite(get, {
    method: "DELETE",
    path: `/${plural[kind]}/{id}/motd/{motdId}`,
    request: async (s) => ({ path: `${base(s)}/motd/${await fixtureOf(kind, s)}`, json: { reason: "Access check" } }),
    allowed: answered(200, roles.senders, async (s) => ({ path: `${base(s)}/motd/${await freshOf(kind, s)}`, json: { reason: "Sent by mistake" } })),
    refused: senderOnly,
    probe: probeOf(kind),
    missing: async (s) => ({ path: `${roles.missingBase()}/motd/${await fixtureOf(kind, s)}`, json: { reason: "Access check" } }),
  });

  describeAccessSuite(get, {
    method: "POST",
    path: `/${plural[kind]}/{id}/motd/{motdId}/acknowledge`,
    request: async (s) => ({ path: `${base(s)}/motd/${await fixtureOf(kind, s)}/acknowledge` }),
    // Every recipient, sender or not; acknowledging is idempotent, so they share the fixture.
    allowed: answered(200, roles.recipients),
    // Seeing the object is not receiving its announcement: non-recipients get 404 as outsiders do.
    refused: [...roles.outsiders, ...roles.nonRecipientReaders].map((role) => [role, 404] as const),
    probe: probeOf(kind),
    missing: async (s) => ({ path: `${roles.missingBase()}/motd/${await fixtureOf(kind, s)}/acknowledge` }),
  });

  describe(`/${plural[kind]}/{id}/motd: the shared announcement's audience`, () => {
    it("was resolved to exactly the scenario's recipients", async () => {
      const s = get();
      const view = await s.ok<{ items: Array<{ userId: string }> }>(roles.creator, {
        path: `${base(s)}/motd/${await fixtureOf(kind, s)}/recipients?limit=200`,
      });
      expect(view.items.map((item) => item.userId).sort()).toEqual(roles.recipients.map((role) => s.users[role].id).sort());
    });

    it("answers 404 for an announcement id that does not exist, even to a sender", async () => {
      const s = get();
      const missing = missingId("ann");
      const send = (role: Role, method: string, path: string, json?: unknown) =>
        s.as(role, { method: method as "GET", path: `${base(s)}/motd/${missing}${path}`, json });
      await expectProblem(await send(roles.creator, "GET", "/recipients"), 404, "NOT_FOUND");
      await expectProblem(await send(roles.creator, "DELETE", "", { reason: "gone" }), 404, "NOT_FOUND");
      await expectProblem(await send(roles.recipients.at(-1)!, "POST", "/acknowledge"), 404, "NOT_FOUND");
      await expectProblem(await send("serverAdmin", "GET", "/recipients"), 404, "NOT_FOUND");
    });
  });
}

/**
 * Observatory Y: obsOwner's, with organization A a member with can_admin. A's owner and its
 * admins (can_manage_members, can_manage_observatories) inherit can_admin there and may send;
 * A's plain members inherit view + observe only.
 */
let observatoryY: Promise<string> | undefined;
const viaOrganization = (s: Scenario) =>
  (observatoryY ??= (async () => {
    const { id } = await s.ok<{ id: string }>("obsOwner", { method: "POST", path: "/observatories", json: { name: "Observatory Y" } });
    await s.ok("obsOwner", {
      method: "POST",
      path: `/observatories/${id}/members/organization`,
      json: { organizationId: s.organizationId, permissions: { can_admin: true } },
    });
    return id;
  })());
const viaOrganizationSenders: SignedInRole[] = ["obsOwner", "orgOwner", "orgMembersManager", "orgObservatoriesManager", "serverAdmin"];
const viaOrganizationRefused: Refusals = [
  ["stranger", 404],
  ["otherOrgOwner", 404],
  ["obsViewer", 404],
  ["obsDirectAdmin", 404],
  ["orgMember", 403],
  ["orgProjectsManager", 403],
  ["orgStorageManager", 403],
  ["orgBillingManager", 403],
  ["orgTarget", 403],
];

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/motd (senders through an organization with can_admin)",
  request: async (s) => ({ path: `/observatories/${await viaOrganization(s)}/motd`, json: body }),
  allowed: answered(201, viaOrganizationSenders),
  refused: viaOrganizationRefused,
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}/motd/history (senders through an organization with can_admin)",
  request: async (s) => ({ path: `/observatories/${await viaOrganization(s)}/motd/history` }),
  allowed: answered(200, viaOrganizationSenders),
  refused: viaOrganizationRefused,
});

describeAccessSuite(get, {
  method: "DELETE",
  path: "/observatories/{id}/motd/{motdId} (senders through an organization with can_admin)",
  request: async (s) => {
    const id = await viaOrganization(s);
    const created = await s.ok<{ id: string }>("obsOwner", { method: "POST", path: `/observatories/${id}/motd`, json: body });
    return { path: `/observatories/${id}/motd/${created.id}`, json: { reason: "Access check" } };
  },
  allowed: answered(200, viaOrganizationSenders),
  refused: viaOrganizationRefused,
});

describe("observatory announcements sent through an organization with can_admin", () => {
  it("reach obsOwner and every member of organization A, the sender acknowledged at creation", async () => {
    const s = get();
    const id = await viaOrganization(s);
    const created = await s.ok<{ id: string; recipientCount: number; acknowledgedCount: number; createdBy: string }>("orgMembersManager", {
      method: "POST",
      path: `/observatories/${id}/motd`,
      json: body,
    });
    expect(created).toMatchObject({ recipientCount: 1 + orgA.length, acknowledgedCount: 1, createdBy: s.users.orgMembersManager.id });
    const view = await s.ok<{ items: Array<{ userId: string; status: string }> }>("orgOwner", {
      path: `/observatories/${id}/motd/${created.id}/recipients?limit=200`,
    });
    expect(view.items.map((item) => item.userId).sort()).toEqual(["obsOwner", ...orgA].map((role) => s.users[role as SignedInRole].id).sort());
    expect(view.items.filter((item) => item.status === "acknowledged").map((item) => item.userId)).toEqual([s.users.orgMembersManager.id]);
    // A plain member of A receives it and may acknowledge, but not manage it.
    await s.ok("orgMember", { method: "POST", path: `/observatories/${id}/motd/${created.id}/acknowledge` }, 200);
    await expectProblem(await s.as("orgMember", { path: `/observatories/${id}/motd/${created.id}/recipients` }), 403, "FORBIDDEN");
  });
});
