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

const project = (s: Scenario) => `/projects/${s.projectId}`;
const missing = `/projects/${missingId("prj")}`;
const probeProject = (s: Scenario) => s.ok("orgOwner", { path: project(s) });
const probeMembers = (s: Scenario) => s.ok("orgOwner", { path: `${project(s)}/members` });
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
  allowed: [
    { as: "stranger", status: 201 },
    { as: "projectMember", status: 201 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "POST",
  path: "/projects (organizationId)",
  request: (s) => ({ path: "/projects", json: { name: "Organization project", organizationId: s.organizationId } }),
  allowed: [
    { as: "orgOwner", status: 201 },
    { as: "orgProjectsManager", status: 201 },
  ],
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
  allowed: [
    { as: "stranger", status: 200 },
    { as: "projectMember", status: 200 },
  ],
  refused: [],
});

describeAccessSuite(get, {
  method: "GET",
  path: "/projects/{id}",
  request: (s) => ({ path: project(s) }),
  allowed: [
    { as: "projectMember", status: 200 },
    { as: "projectAdmin", status: 200 },
    { as: "orgOwner", status: 200 },
    { as: "orgProjectsManager", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: missing }),
});

describeAccessSuite(get, {
  method: "PUT",
  path: "/projects/{id}",
  request: (s) => ({ path: project(s), json: { status: "active" } }),
  allowed: [
    { as: "orgOwner", status: 200 },
    { as: "projectAdmin", status: 200 },
    { as: "orgProjectsManager", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeProject,
  missing: () => ({ path: missing, json: { status: "active" } }),
});

describeAccessSuite(get, {
  method: "GET",
  path: "/projects/{id}/members",
  request: (s) => ({ path: `${project(s)}/members` }),
  allowed: [
    { as: "projectMember", status: 200 },
    { as: "projectAdmin", status: 200 },
    { as: "serverAdmin", status: 200 },
  ],
  refused: [...outsiders],
  missing: () => ({ path: `${missing}/members` }),
});

describeAccessSuite(get, {
  method: "POST",
  path: "/projects/{id}/members",
  request: (s) => ({ path: `${project(s)}/members`, json: { email: s.users.stranger.email, role: "member" } }),
  allowed: [
    { as: "orgOwner", status: 201, request: async (s) => ({ path: `${project(s)}/members`, json: { email: (await s.freshUser()).email, role: "member" } }) },
    { as: "projectAdmin", status: 201, request: async (s) => ({ path: `${project(s)}/members`, json: { email: (await s.freshUser()).email, role: "admin" } }) },
  ],
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members`, json: { email: s.users.stranger.email, role: "member" } }),
});

const memberToRemove = async (s: Scenario) => {
  const user = await s.freshUser();
  await s.ok("orgOwner", { method: "POST", path: `${project(s)}/members`, json: { email: user.email, role: "member" } });
  return { path: `${project(s)}/members/${user.id}` };
};
describeAccessSuite(get, {
  method: "DELETE",
  path: "/projects/{id}/members/{userId}",
  request: (s) => ({ path: `${project(s)}/members/${s.users.projectAdmin.id}` }),
  allowed: [
    { as: "orgOwner", status: 204, request: memberToRemove },
    { as: "projectAdmin", status: 204, request: memberToRemove },
  ],
  refused: [...outsiders, ["projectMember", 403]],
  probe: probeMembers,
  missing: (s) => ({ path: `${missing}/members/${s.users.projectAdmin.id}` }),
});
