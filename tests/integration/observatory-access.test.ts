import { addingFreshUser, answered, describeAccessSuite, missingId, removingFreshMember, useAccessScenario, type Scenario } from "../support/access-suite";

const get = useAccessScenario();

const obs = (s: Scenario) => `/observatories/${s.observatoryId}`;
const members = (s: Scenario) => `${obs(s)}/members`;
const missing = `/observatories/${missingId("obs")}`;
const probeMembers = (s: Scenario) => s.ok("obsOwner", { path: members(s) });
const probeObservatory = (s: Scenario) => s.ok("obsOwner", { path: obs(s) });
/** Observatory X's outsiders: they must not learn that it exists. Organization B is not a member; project members are nobody here. */
const outsiders = [
  ["stranger", 404],
  ["otherOrgOwner", 404],
  ["projectMember", 404],
] as const;
/**
 * Callers who see X but may not administer it: a direct viewer, and organization A's members,
 * its owner included, whose inherited can_admin is capped by A's grant (view + observe).
 */
const viewersOnly = [
  ["obsViewer", 403],
  ["orgMember", 403],
  ["orgOwner", 403],
  ["orgMembersManager", 403],
] as const;

/** A new observatory of obsOwner's, for successes that would change X. */
const freshObservatory = async (s: Scenario) =>
  (await s.ok<{ id: string }>("obsOwner", { method: "POST", path: "/observatories", json: { name: "Fresh" } })).id;

/** A read of X's own data: whoever sees X may make it, and outsiders get 404 as if it did not exist. */
const describeRead = (subpath: string) =>
  describeAccessSuite(get, {
    method: "GET",
    path: `/observatories/{id}/${subpath}`,
    request: (s) => ({ path: `${obs(s)}/${subpath}` }),
    allowed: answered(200, ["obsViewer", "orgMember", "serverAdmin"]),
    refused: [...outsiders],
    missing: () => ({ path: `${missing}/${subpath}` }),
  });

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories",
  request: () => ({ path: "/observatories", json: { name: "Mine" } }),
  allowed: answered(201, ["stranger", "orgMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories (organizationId)",
  request: (s) => ({ path: "/observatories", json: { name: "Organization's", organizationId: s.organizationId } }),
  allowed: answered(201, ["orgOwner", "orgObservatoriesManager", "serverAdmin"]),
  refused: [
    ["stranger", 404],
    ["otherOrgOwner", 404],
    ["obsOwner", 404],
    ["orgMember", 403],
    ["orgMembersManager", 403],
    ["orgProjectsManager", 403],
    ["orgStorageManager", 403],
    ["orgBillingManager", 403],
  ],
  missing: () => ({ path: "/observatories", json: { name: "Nobody's", organizationId: missingId("org") } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories",
  request: () => ({ path: "/observatories" }),
  allowed: answered(200, ["stranger", "orgMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}",
  request: (s) => ({ path: obs(s) }),
  allowed: answered(200, ["obsOwner", "obsViewer", "orgMember", "serverAdmin"]),
  refused: [...outsiders],
  missing: () => ({ path: missing }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/transfer-ownership",
  request: (s) => ({ path: `${obs(s)}/transfer-ownership`, json: { kind: "user", id: s.users.obsViewer.id } }),
  allowed: [
    {
      as: "obsOwner",
      status: 200,
      request: async (s) => {
        const id = await freshObservatory(s);
        await s.ok("obsOwner", { method: "POST", path: `/observatories/${id}/members`, json: { email: s.users.obsViewer.email } });
        return { path: `/observatories/${id}/transfer-ownership`, json: { kind: "user", id: s.users.obsViewer.id } };
      },
    },
    {
      as: "serverAdmin",
      status: 200,
      request: async (s) => ({
        path: `/observatories/${await freshObservatory(s)}/transfer-ownership`,
        json: { kind: "organization", id: s.otherOrganizationId },
      }),
    },
  ],
  // Administering is not owning: only the owner (or the owning organization's owner) transfers.
  refused: [...outsiders, ...viewersOnly, ["obsDirectAdmin", 403]],
  probe: probeObservatory,
  missing: (s) => ({ path: `${missing}/transfer-ownership`, json: { kind: "user", id: s.users.obsViewer.id } }),
});

describeRead("members");

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/members",
  request: (s) => ({ path: members(s), json: { email: s.users.stranger.email } }),
  allowed: answered(201, ["obsOwner", "obsDirectAdmin", "serverAdmin"], addingFreshUser(members)),
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members`, json: { email: s.users.stranger.email } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/observatories/{id}/members/{userId}",
  request: (s) => ({ path: `${members(s)}/${s.users.obsViewer.id}`, json: { permissions: { can_view: true } } }),
  allowed: answered(200, ["obsOwner", "obsDirectAdmin", "serverAdmin"]),
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.obsViewer.id}`, json: { permissions: { can_view: true } } }),
});

describeAccessSuite(get, {
  method: "DELETE",
  path: "/observatories/{id}/members/{userId}",
  // obsViewer may remove itself, so it is not among the refused here.
  request: (s) => ({ path: `${members(s)}/${s.users.obsViewer.id}` }),
  allowed: answered(204, ["obsOwner", "obsDirectAdmin", "serverAdmin"], removingFreshMember("obsOwner", members)),
  refused: [...outsiders, ["orgMember", 403], ["orgOwner", 403], ["orgMembersManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.obsViewer.id}` }),
});

/** The organization members of a new observatory of obsOwner's, for successes that would change X's. */
const freshOrganizationMembers = async (s: Scenario) => `/observatories/${await freshObservatory(s)}/members/organization`;

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/members/organization",
  request: (s) => ({ path: `${members(s)}/organization`, json: { organizationId: s.otherOrganizationId, permissions: { can_view: true } } }),
  allowed: answered(201, ["obsOwner", "serverAdmin"], async (s) => ({
    path: await freshOrganizationMembers(s),
    json: { organizationId: s.otherOrganizationId },
  })),
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization`, json: { organizationId: s.otherOrganizationId } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/observatories/{id}/members/organization/{orgId}",
  request: (s) => ({ path: `${members(s)}/organization/${s.organizationId}`, json: { permissions: { can_view: true, can_observe: true } } }),
  allowed: answered(200, ["obsOwner", "obsDirectAdmin", "serverAdmin"]),
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization/${s.organizationId}`, json: { permissions: { can_view: true } } }),
});

const organizationToRemove = async (s: Scenario) => {
  const path = await freshOrganizationMembers(s);
  await s.ok("obsOwner", { method: "POST", path, json: { organizationId: s.otherOrganizationId } });
  return { path: `${path}/${s.otherOrganizationId}` };
};
describeAccessSuite(get, {
  method: "DELETE",
  path: "/observatories/{id}/members/organization/{orgId}",
  request: (s) => ({ path: `${members(s)}/organization/${s.organizationId}` }),
  allowed: answered(204, ["obsOwner", "serverAdmin"], organizationToRemove),
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization/${s.organizationId}` }),
});

describeRead("permissions/me");

describeRead("history");
