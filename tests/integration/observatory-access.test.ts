import { afterAll, beforeAll } from "vitest";
import { accessServerEnv, buildScenario, describeAccessSuite, missingId, type Scenario } from "../support/access-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let scenario: Scenario;
beforeAll(async () => {
  server = await startTestServer(accessServerEnv);
  scenario = await buildScenario(server);
});
afterAll(() => server?.stop());
const get = () => scenario;

const obs = (s: Scenario) => `/observatories/${s.observatoryId}`;
const missing = `/observatories/${missingId("obs")}`;
const probeMembers = (s: Scenario) => s.ok("obsOwner", { path: `${obs(s)}/members` });
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
const freshObservatory = async (s: Scenario) => (await s.ok<{ id: string }>("obsOwner", { method: "POST", path: "/observatories", json: { name: "Fresh" } })).id;

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories",
  request: () => ({ path: "/observatories", json: { name: "Mine" } }),
  allowed: [
    { as: "stranger", status: 201 },
    { as: "orgMember", status: 201 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories (organizationId)",
  request: (s) => ({ path: "/observatories", json: { name: "Organization's", organizationId: s.organizationId } }),
  allowed: [
    { as: "orgOwner", status: 201 },
    { as: "orgObservatoriesManager", status: 201 },
    { as: "serverAdmin", status: 201 },
  ],
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
  allowed: [
    { as: "stranger", status: 200 },
    { as: "orgMember", status: 200 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}",
  request: (s) => ({ path: obs(s) }),
  allowed: [
    { as: "obsOwner", status: 200 },
    { as: "obsViewer", status: 200 },
    { as: "orgMember", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
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
    { as: "serverAdmin", status: 200, request: async (s) => ({ path: `/observatories/${await freshObservatory(s)}/transfer-ownership`, json: { kind: "organization", id: s.otherOrganizationId } }) },
  ],
  // Administering is not owning: only the owner (or the owning organization's owner) transfers.
  refused: [...outsiders, ...viewersOnly, ["obsDirectAdmin", 403]],
  probe: probeObservatory,
  missing: (s) => ({ path: `${missing}/transfer-ownership`, json: { kind: "user", id: s.users.obsViewer.id } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}/members",
  request: (s) => ({ path: `${obs(s)}/members` }),
  allowed: [
    { as: "obsViewer", status: 200 },
    { as: "orgMember", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `${missing}/members` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/members",
  request: (s) => ({ path: `${obs(s)}/members`, json: { email: s.users.stranger.email } }),
  allowed: [
    { as: "obsOwner", status: 201, request: async (s) => ({ path: `${obs(s)}/members`, json: { email: (await s.freshUser()).email } }) },
    { as: "obsDirectAdmin", status: 201, request: async (s) => ({ path: `${obs(s)}/members`, json: { email: (await s.freshUser()).email } }) },
    { as: "serverAdmin", status: 201, request: async (s) => ({ path: `${obs(s)}/members`, json: { email: (await s.freshUser()).email } }) },
  ],
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members`, json: { email: s.users.stranger.email } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/observatories/{id}/members/{userId}",
  request: (s) => ({ path: `${obs(s)}/members/${s.users.obsViewer.id}`, json: { permissions: { can_view: true } } }),
  allowed: [
    { as: "obsOwner", status: 200 },
    { as: "obsDirectAdmin", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.obsViewer.id}`, json: { permissions: { can_view: true } } }),
});

const userToRemove = async (s: Scenario) => {
  const user = await s.freshUser();
  await s.ok("obsOwner", { method: "POST", path: `${obs(s)}/members`, json: { email: user.email } });
  return { path: `${obs(s)}/members/${user.id}` };
};
describeAccessSuite(get, {
  method: "DELETE",
  path: "/observatories/{id}/members/{userId}",
  // obsViewer may remove itself, so it is not among the refused here.
  request: (s) => ({ path: `${obs(s)}/members/${s.users.obsViewer.id}` }),
  allowed: [
    { as: "obsOwner", status: 204, request: userToRemove },
    { as: "obsDirectAdmin", status: 204, request: userToRemove },
    { as: "serverAdmin", status: 204, request: userToRemove },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgOwner", 403], ["orgMembersManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.obsViewer.id}` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/observatories/{id}/members/organization",
  request: (s) => ({ path: `${obs(s)}/members/organization`, json: { organizationId: s.otherOrganizationId, permissions: { can_view: true } } }),
  allowed: [
    { as: "obsOwner", status: 201, request: async (s) => ({ path: `/observatories/${await freshObservatory(s)}/members/organization`, json: { organizationId: s.otherOrganizationId } }) },
    { as: "serverAdmin", status: 201, request: async (s) => ({ path: `/observatories/${await freshObservatory(s)}/members/organization`, json: { organizationId: s.otherOrganizationId } }) },
  ],
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization`, json: { organizationId: s.otherOrganizationId } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/observatories/{id}/members/organization/{orgId}",
  request: (s) => ({ path: `${obs(s)}/members/organization/${s.organizationId}`, json: { permissions: { can_view: true, can_observe: true } } }),
  allowed: [
    { as: "obsOwner", status: 200 },
    { as: "obsDirectAdmin", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization/${s.organizationId}`, json: { permissions: { can_view: true } } }),
});

const organizationToRemove = async (s: Scenario) => {
  const id = await freshObservatory(s);
  await s.ok("obsOwner", { method: "POST", path: `/observatories/${id}/members/organization`, json: { organizationId: s.otherOrganizationId } });
  return { path: `/observatories/${id}/members/organization/${s.otherOrganizationId}` };
};
describeAccessSuite(get, {
  method: "DELETE",
  path: "/observatories/{id}/members/organization/{orgId}",
  request: (s) => ({ path: `${obs(s)}/members/organization/${s.organizationId}` }),
  allowed: [
    { as: "obsOwner", status: 204, request: organizationToRemove },
    { as: "serverAdmin", status: 204, request: organizationToRemove },
  ],
  refused: [...outsiders, ...viewersOnly],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/organization/${s.organizationId}` }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}/permissions/me",
  request: (s) => ({ path: `${obs(s)}/permissions/me` }),
  allowed: [
    { as: "obsViewer", status: 200 },
    { as: "orgMember", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `${missing}/permissions/me` }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/observatories/{id}/history",
  request: (s) => ({ path: `${obs(s)}/history` }),
  allowed: [
    { as: "obsViewer", status: 200 },
    { as: "orgMember", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `${missing}/history` }),
});
