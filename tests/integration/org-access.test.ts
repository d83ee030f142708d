import { randomBytes } from "node:crypto";
import { addingFreshUser, answered, describeAccessSuite, missingId, removingFreshMember, useAccessScenario, type Scenario } from "../support/access-suite";

const get = useAccessScenario();

const org = (s: Scenario) => `/organizations/${s.organizationId}`;
const probeOrganization = (s: Scenario) => s.ok("orgOwner", { path: org(s) });
const members = (s: Scenario) => `${org(s)}/members`;
/** An organization that does not exist (a new id every time). */
const missing = () => `/organizations/${missingId("org")}`;
const probeMembers = (s: Scenario) => s.ok("orgOwner", { path: members(s) });
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
  allowed: answered(200, ["stranger", "orgMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations?all=true",
  request: () => ({ path: "/organizations?all=true" }),
  allowed: answered(200, ["serverAdmin"]),
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
  allowed: answered(201, ["stranger", "orgMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}",
  request: (s) => ({ path: org(s) }),
  allowed: answered(200, ["orgMember", "orgBillingManager", "serverAdmin"]),
  refused: [...outsiders],
  missing: () => ({ path: missing() }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id} (settings)",
  request: (s) => ({ path: org(s), json: { description: `Changed ${randomBytes(3).toString("hex")}` } }),
  allowed: answered(200, ["orgOwner", "serverAdmin"]),
  refused: [
    ...outsiders,
    ["orgMember", 403],
    ["orgMembersManager", 403],
    ["orgObservatoriesManager", 403],
    ["orgStorageManager", 403],
    ["orgBillingManager", 403],
  ],
  probe: probeOrganization,
  missing: () => ({ path: missing(), json: { description: "x" } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id} (externalStorage)",
  request: (s) => ({
    path: org(s),
    json: {
      externalStorage: [
        {
          kind: "s3",
          label: "Archive",
          settings: { region: "eu-west-1", bucket: "archive" },
          secrets: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "s3-secret-value" },
        },
      ],
    },
  }),
  allowed: answered(200, ["orgStorageManager", "orgOwner"]),
  refused: [...outsiders, ["orgMember", 403], ["orgMembersManager", 403], ["orgBillingManager", 403]],
  probe: probeOrganization,
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}/members",
  request: (s) => ({ path: members(s) }),
  allowed: answered(200, ["orgMember", "serverAdmin"]),
  refused: [...outsiders],
  missing: () => ({ path: `${missing()}/members` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/organizations/{id}/members",
  // Refused attempts try to add a user who exists and is not a member.
  request: (s) => ({ path: members(s), json: { email: s.users.obsViewer.email } }),
  allowed: answered(201, ["orgOwner", "orgMembersManager"], addingFreshUser(members)),
  refused: [...outsiders, ["orgMember", 403], ["orgObservatoriesManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing()}/members`, json: { email: s.users.obsViewer.email } }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/organizations/{id}/members/{userId}",
  request: (s) => ({ path: `${members(s)}/${s.users.orgTarget.id}`, json: { permissions: { can_manage_billing: true } } }),
  allowed: answered(200, ["orgOwner", "orgMembersManager"]),
  refused: [...outsiders, ["orgMember", 403], ["orgProjectsManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing()}/members/${s.users.orgTarget.id}`, json: { permissions: { can_manage_billing: true } } }),
});

describeAccessSuite(get, {
  method: "DELETE",
  path: "/organizations/{id}/members/{userId}",
  request: (s) => ({ path: `${members(s)}/${s.users.orgTarget.id}` }),
  allowed: answered(204, ["orgOwner", "orgMembersManager"], removingFreshMember("orgOwner", members)),
  refused: [...outsiders, ["orgMember", 403], ["orgObservatoriesManager", 403], ["orgStorageManager", 403], ["orgBillingManager", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing()}/members/${s.users.orgTarget.id}` }),
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
  missing: (s) => ({ path: `${missing()}/transfer-ownership`, json: { userId: s.users.orgMember.id } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/organizations/{id}/audit",
  request: (s) => ({ path: `${org(s)}/audit` }),
  allowed: answered(200, ["orgOwner", "orgMembersManager", "serverAdmin"]),
  refused: [
    ...outsiders,
    ["orgMember", 403],
    ["orgObservatoriesManager", 403],
    ["orgProjectsManager", 403],
    ["orgStorageManager", 403],
    ["orgBillingManager", 403],
  ],
  missing: () => ({ path: `${missing()}/audit` }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/api/v1/admin/audit",
  request: () => ({ path: "/api/v1/admin/audit" }),
  allowed: answered(200, ["serverAdmin"]),
  refused: [
    ["stranger", 403],
    ["orgOwner", 403],
    ["orgMembersManager", 403],
    ["obsOwner", 403],
  ],
});
