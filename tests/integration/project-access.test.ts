import { addingFreshUser, answered, describeAccessSuite, missingId, removingFreshMember, useAccessScenario, type Scenario } from "../support/access-suite";

const get = useAccessScenario();

const project = (s: Scenario) => `/projects/${s.projectId}`;
const missing = `/projects/${missingId("prj")}`;
const probeProject = (s: Scenario) => s.ok("orgOwner", { path: project(s) });
const members = (s: Scenario) => `${project(s)}/members`;
const probeMembers = (s: Scenario) => s.ok("orgOwner", { path: members(s) });
/**
 * Project P's outsiders. Belonging to P's organization is not belonging to P: a member without
 * can_manage_projects (even one who manages members) does not see it.
 */
const outsiders = [
  ["stranger", 404],
  ["otherOrgOwner", 404],
  ["orgMember", 404],
  ["orgMembersManager", 404],
  ["obsOwner", 404],
] as const;

describeAccessSuite(get, {
  method: "POST",
  path: "/projects",
  request: () => ({ path: "/projects", json: { name: "Solo" } }),
  allowed: answered(201, ["stranger", "projectMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "POST",
  path: "/projects (organizationId)",
  request: (s) => ({ path: "/projects", json: { name: "Organization project", organizationId: s.organizationId } }),
  allowed: answered(201, ["orgOwner", "orgProjectsManager"]),
  refused: [
    ["stranger", 404],
    ["otherOrgOwner", 404],
    ["projectAdmin", 404],
    ["orgMember", 403],
    ["orgMembersManager", 403],
    ["orgObservatoriesManager", 403],
    ["orgStorageManager", 403],
    ["orgBillingManager", 403],
  ],
  missing: () => ({ path: "/projects", json: { name: "Nobody's", organizationId: missingId("org") } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/projects",
  request: () => ({ path: "/projects" }),
  allowed: answered(200, ["stranger", "projectMember"]),
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/projects/{id}",
  request: (s) => ({ path: project(s) }),
  allowed: answered(200, ["projectMember", "projectAdmin", "orgOwner", "orgProjectsManager", "serverAdmin"]),
  refused: [...outsiders],
  missing: () => ({ path: missing }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/projects/{id}",
  request: (s) => ({ path: project(s), json: { status: "active" } }),
  allowed: answered(200, ["orgOwner", "projectAdmin", "orgProjectsManager", "serverAdmin"]),
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeProject,
  missing: () => ({ path: missing, json: { status: "active" } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/projects/{id}/members",
  request: (s) => ({ path: members(s) }),
  allowed: answered(200, ["projectMember", "projectAdmin", "serverAdmin"]),
  refused: [...outsiders],
  missing: () => ({ path: `${missing}/members` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/projects/{id}/members",
  request: (s) => ({ path: members(s), json: { email: s.users.stranger.email, role: "member" } }),
  allowed: [
    { as: "orgOwner", status: 201, request: addingFreshUser(members, { role: "member" }) },
    { as: "projectAdmin", status: 201, request: addingFreshUser(members, { role: "admin" }) },
  ],
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members`, json: { email: s.users.stranger.email, role: "member" } }),
});

describeAccessSuite(get, {
  method: "DELETE",
  path: "/projects/{id}/members/{userId}",
  request: (s) => ({ path: `${members(s)}/${s.users.projectAdmin.id}` }),
  allowed: answered(204, ["orgOwner", "projectAdmin"], removingFreshMember("orgOwner", members, { role: "member" })),
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.projectAdmin.id}` }),
});
