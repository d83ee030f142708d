import { randomBytes } from "node:crypto";
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

const org = (s: Scenario) => `/organizations/${s.organizationId}`;
const probeOrganization = (s: Scenario) => s.ok("orgOwner", { path: org(s) });
const probeMembers = (s: Scenario) => s.ok("orgOwner", { path: `${org(s)}/members` });
const newOrganization = () => {
  const tag = randomBytes(4).toString("hex");
  return { name: `Org ${tag}`, shortName: `o-${tag}`, type: "other", contactEmail: `${tag}@example.com` };
};
/** Organization A's outsiders: they must not learn that it exists. */
const outsiders = [
  ["stranger", 404],
  ["otherOrgOwner", 404],
  ["obsOwner", 404],
  ["projectMember", 404],
] as const;

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations",
  request: () => ({ path: "/organizations" }),
  allowed: [
    { as: "stranger", status: 200 },
    { as: "orgMember", status: 200 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations?all=true",
  request: () => ({ path: "/organizations?all=true" }),
  allowed: [{ as: "serverAdmin", status: 200 }],
  refused: [
    ["stranger", 403],
    ["orgOwner", 403],
    ["orgMembersManager", 403],
    ["otherOrgOwner", 403],
  ],
});

describeAccessSuite(get, {
  method: "POST",
  path: "/organizations",
  request: () => ({ path: "/organizations", json: newOrganization() }),
  allowed: [
    { as: "stranger", status: 201 },
    { as: "orgMember", status: 201 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}",
  request: (s) => ({ path: org(s) }),
  allowed: [
    { as: "orgMember", status: 200 },
    { as: "orgBillingManager", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `/organizations/${missingId("org")}` }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id} (settings)",
  request: (s) => ({ path: org(s), json: { description: `Changed ${randomBytes(3).toString("hex")}` } }),
  allowed: [
    { as: "orgOwner", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [
    ...outsiders,
    ["orgMember", 403],
    ["orgMembersManager", 403],
    ["orgObservatoriesManager", 403],
    ["orgStorageManager", 403],
    ["orgBillingManager", 403],
  ],
  probe: probeOrganization,
  missing: () => ({ path: `/organizations/${missingId("org")}`, json: { description: "x" } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id} (externalStorage)",
  request: (s) => ({
    path: org(s),
    json: { externalStorage: [{ kind: "s3", label: "Archive", settings: { bucket: "archive" }, secrets: { secretAccessKey: "s3-secret-value" } }] },
  }),
  allowed: [
    { as: "orgStorageManager", status: 200 },
    { as: "orgOwner", status: 200 },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgMembersManager", 403], ["orgBillingManager", 403]],
  probe: probeOrganization,
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}/members",
  request: (s) => ({ path: `${org(s)}/members` }),
  allowed: [
    { as: "orgMember", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `/organizations/${missingId("org")}/members` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/organizations/{id}/members",
  // Refused attempts try to add a user who exists and is not a member.
  request: (s) => ({ path: `${org(s)}/members`, json: { email: s.users.obsViewer.email } }),
  allowed: [
    { as: "orgOwner", status: 201, request: async (s) => ({ path: `${org(s)}/members`, json: { email: (await s.freshUser()).email } }) },
    { as: "orgMembersManager", status: 201, request: async (s) => ({ path: `${org(s)}/members`, json: { email: (await s.freshUser()).email } }) },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgObservatoriesManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `/organizations/${missingId("org")}/members`, json: { email: s.users.obsViewer.email } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id}/members/{userId}",
  request: (s) => ({ path: `${org(s)}/members/${s.users.orgTarget.id}`, json: { permissions: { can_manage_billing: true } } }),
  allowed: [
    { as: "orgOwner", status: 200 },
    { as: "orgMembersManager", status: 200 },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgProjectsManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `/organizations/${missingId("org")}/members/${s.users.orgTarget.id}`, json: { permissions: { can_manage_billing: true } } }),
});

const memberToRemove = async (s: Scenario) => {
  const user = await s.freshUser();
  await s.ok("orgOwner", { method: "POST", path: `${org(s)}/members`, json: { email: user.email } });
  return { path: `${org(s)}/members/${user.id}` };
};
describeAccessSuite(get, {
  method: "DELETE",
  path: "/organizations/{id}/members/{userId}",
  request: (s) => ({ path: `${org(s)}/members/${s.users.orgTarget.id}` }),
  allowed: [
    { as: "orgOwner", status: 204, request: memberToRemove },
    { as: "orgMembersManager", status: 204, request: memberToRemove },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgObservatoriesManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `/organizations/${missingId("org")}/members/${s.users.orgTarget.id}` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/organizations/{id}/transfer-ownership",
  request: (s) => ({ path: `${org(s)}/transfer-ownership`, json: { userId: s.users.orgMember.id } }),
  allowed: [
    {
      as: "orgOwner",
      status: 200,
      // A transfer of its own, so that organization A keeps its owner.
      request: async (s) => {
        const created = await s.ok<{ id: string }>("orgOwner", { method: "POST", path: "/organizations", json: newOrganization() });
        await s.ok("orgOwner", { method: "POST", path: `/organizations/${created.id}/members`, json: { email: s.users.orgMember.email } });
        return { path: `/organizations/${created.id}/transfer-ownership`, json: { userId: s.users.orgMember.id } };
      },
    },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgMembersManager", 403], ["orgStorageManager", 403], ["serverAdmin", 403]],
  probe: probeOrganization,
  missing: (s) => ({ path: `/organizations/${missingId("org")}/transfer-ownership`, json: { userId: s.users.orgMember.id } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}/audit",
  request: (s) => ({ path: `${org(s)}/audit` }),
  allowed: [
    { as: "orgOwner", status: 200 },
    { as: "orgMembersManager", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders, ["orgMember", 403], ["orgObservatoriesManager", 403], ["orgProjectsManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  missing: () => ({ path: `/organizations/${missingId("org")}/audit` }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/api/v1/admin/audit",
  request: () => ({ path: "/api/v1/admin/audit" }),
  allowed: [{ as: "serverAdmin", status: 200 }],
  refused: [
    ["stranger", 403],
    ["orgOwner", 403],
    ["orgMembersManager", 403],
    ["obsOwner", 403],
  ],
});
