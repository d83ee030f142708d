import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, loginSession, type Account, type Problem } from "./auth-suite";
import { startTestServer, type TestServer } from "./test-server";

/**
 * The shared security suite of organizations, observatories, projects and the audit log:
 * one scenario of users and objects per test file, and for every route the callers who must be
 * refused, with the status and stable code they get. Each route also proves that one caller
 * succeeds with the very same request shape, so a refusal can never come from a broken request.
 */

/** Everyone in the scenario. `anonymous` sends no credentials at all. */
const roles = [
  "anonymous",
  "stranger",
  "serverAdmin",
  // Organization A
  "orgOwner",
  "orgMember",
  "orgMembersManager",
  "orgObservatoriesManager",
  "orgProjectsManager",
  "orgStorageManager",
  "orgBillingManager",
  "orgTarget",
  // Organization B: its owner has every permission there, and none of it counts in A.
  "otherOrgOwner",
  // Observatory X (user-owned; A is a member with can_view + can_observe)
  "obsOwner",
  "obsViewer",
  "obsDirectAdmin",
  // Project P (organization A's, owned by orgOwner)
  "projectAdmin",
  "projectMember",
] as const;
export type Role = (typeof roles)[number];
export type SignedInRole = Exclude<Role, "anonymous">;

const ADMIN = { email: "access-admin@example.com", password: "access admin password" } as const;
/** Start the server of an access-suite file with these, so the scenario has a server admin. */
const accessServerEnv = {
  MERIDIAN_ROLE: "server",
  SIGNUPS_PER_IP_PER_HOUR: "100000",
  LOGIN_FAILURES_PER_IP: "100000",
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
} as const;

export interface Scenario {
  server: TestServer;
  users: Record<SignedInRole, Account>;
  /** Organization A: orgOwner owns it, the org* roles are its members. */
  organizationId: string;
  /** Organization B: otherOrgOwner owns it; it is related to nothing else. */
  otherOrganizationId: string;
  /** Observatory X: owned by obsOwner; organization A is a member with can_view + can_observe. */
  observatoryId: string;
  /** Project P: organization A's, owned by orgOwner, with projectAdmin and projectMember. */
  projectId: string;
  /** A fresh account nobody knows yet (for requests that consume a user). */
  freshUser(): Promise<Account>;
  /** Sends a request as `role` (no credentials for anonymous). */
  as(role: Role, prepared: PreparedRequest): Promise<Response>;
  /** Sends a request and returns status and JSON body, failing loudly on an unexpected status. */
  ok<T = Record<string, unknown>>(role: Role, prepared: PreparedRequest, status?: number): Promise<T>;
}

export interface PreparedRequest {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  json?: unknown;
}

/** Builds a request from the scenario (method added by the suite). */
type BuildRequest = (scenario: Scenario) => PreparedRequest | Promise<PreparedRequest>;

const codeOf = { 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND" } as const;
type RefusalStatus = keyof typeof codeOf;

export interface AccessRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** The path as the contract writes it (test names only). */
  path: string;
  /** Builds the request (method added by the suite). Refused attempts all use it. */
  request: BuildRequest;
  /**
   * Callers for whom it succeeds. `request` overrides the shared one when success would consume
   * the fixture (a transfer, a removal); it must hit the same route.
   */
  allowed: Array<{ as: SignedInRole; status: number; request?: BuildRequest }>;
  /** Callers refused, besides `anonymous` (always 401 UNAUTHENTICATED). */
  refused: ReadonlyArray<readonly [SignedInRole, RefusalStatus]>;
  /**
   * A read made by a caller who may see the object, before and after the refused attempts:
   * a refused request must change nothing.
   */
  probe?(scenario: Scenario): Promise<unknown>;
  /** The same route on an object that does not exist: 404 NOT_FOUND even for the allowed caller. */
  missing?: BuildRequest;
}

async function readJson(response: Response) {
  const text = await response.text();
  try {
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null, text };
  } catch {
    return { status: response.status, body: null, text };
  }
}

/**
 * Builds the scenario: 16 accounts, two organizations, an observatory and a project, all through
 * the public API. Call it once per test file (beforeAll).
 */
async function buildScenario(server: TestServer): Promise<Scenario> {
  const tag = randomBytes(3).toString("hex");
  const signedIn = roles.filter((role): role is Exclude<SignedInRole, "serverAdmin"> => role !== "anonymous" && role !== "serverAdmin");
  const accounts = await Promise.all(
    signedIn.map((role) => createAccount(server, { email: `${role.toLowerCase()}-${tag}@example.com`, name: `${role} ${tag}` })),
  );
  const admin = await loginSession(server, ADMIN);
  const me = (await (await server.request("/api/v1/auth/me", { token: admin.token })).json()) as { id: string; roles: string[] };
  expect(me.roles).toContain("serverAdmin");
  const users = Object.fromEntries(signedIn.map((role, index) => [role, accounts[index]!])) as Record<SignedInRole, Account>;
  users.serverAdmin = { id: me.id, email: ADMIN.email, password: ADMIN.password, token: admin.token };

  const as = (role: Role, prepared: PreparedRequest) =>
    server.request(prepared.path, { method: prepared.method ?? "GET", json: prepared.json, token: role === "anonymous" ? undefined : users[role].token });
  const ok = async <T>(role: Role, prepared: PreparedRequest, status?: number) => {
    const result = await readJson(await as(role, prepared));
    const expected = status ?? (prepared.method === "POST" ? 201 : prepared.method === "DELETE" ? 204 : 200);
    if (result.status !== expected)
      throw new Error(`${prepared.method ?? "GET"} ${prepared.path} as ${role}: expected ${expected}, got ${result.status} ${result.text}`);
    return result.body as T;
  };

  const organization = await ok<{ id: string }>("orgOwner", {
    method: "POST",
    path: "/organizations",
    json: { name: `Org A ${tag}`, shortName: `a-${tag}`, type: "university", contactEmail: `a-${tag}@example.com` },
  });
  const otherOrganization = await ok<{ id: string }>("otherOrgOwner", {
    method: "POST",
    path: "/organizations",
    json: { name: `Org B ${tag}`, shortName: `b-${tag}`, type: "company", contactEmail: `b-${tag}@example.com` },
  });
  const orgMembers: Array<[SignedInRole, Record<string, boolean>]> = [
    ["orgMember", {}],
    ["orgMembersManager", { can_manage_members: true }],
    ["orgObservatoriesManager", { can_manage_observatories: true }],
    ["orgProjectsManager", { can_manage_projects: true }],
    ["orgStorageManager", { can_manage_storage: true }],
    ["orgBillingManager", { can_manage_billing: true }],
    ["orgTarget", {}],
  ];
  for (const [role, permissions] of orgMembers) {
    await ok("orgOwner", { method: "POST", path: `/organizations/${organization.id}/members`, json: { email: users[role].email, permissions } });
  }

  const observatory = await ok<{ id: string }>("obsOwner", { method: "POST", path: "/observatories", json: { name: `Observatory X ${tag}` } });
  await ok("obsOwner", {
    method: "POST",
    path: `/observatories/${observatory.id}/members`,
    json: { email: users.obsViewer.email, permissions: { can_view: true } },
  });
  await ok("obsOwner", {
    method: "POST",
    path: `/observatories/${observatory.id}/members`,
    json: { email: users.obsDirectAdmin.email, permissions: { can_admin: true } },
  });
  await ok("obsOwner", {
    method: "POST",
    path: `/observatories/${observatory.id}/members/organization`,
    json: { organizationId: organization.id, permissions: { can_view: true, can_observe: true } },
  });

  const project = await ok<{ id: string }>("orgOwner", {
    method: "POST",
    path: "/projects",
    json: { name: `Project P ${tag}`, organizationId: organization.id },
  });
  await ok("orgOwner", { method: "POST", path: `/projects/${project.id}/members`, json: { email: users.projectAdmin.email, role: "admin" } });
  await ok("orgOwner", { method: "POST", path: `/projects/${project.id}/members`, json: { email: users.projectMember.email, role: "member" } });

  return {
    server,
    users,
    organizationId: organization.id,
    otherOrganizationId: otherOrganization.id,
    observatoryId: observatory.id,
    projectId: project.id,
    freshUser: () => createAccount(server),
    as,
    ok,
  };
}

/**
 * The scenario of one access-suite file: starts its server with `accessServerEnv` and builds the
 * scenario before all tests, stops the server after them. Returns the getter describeAccessSuite takes.
 */
export function useAccessScenario(): () => Scenario {
  let server: TestServer | undefined;
  let scenario: Scenario;
  beforeAll(async () => {
    server = await startTestServer(accessServerEnv);
    scenario = await buildScenario(server);
  });
  afterAll(() => server?.stop());
  return () => scenario;
}

/**
 * `allowed` entries: each of `callers` succeeds with `status`, with the route's shared request or,
 * when given, with `request` (called anew for each of them).
 */
export const answered = (status: number, callers: readonly SignedInRole[], request?: BuildRequest): AccessRoute["allowed"] =>
  callers.map((as) => (request ? { as, status, request } : { as, status }));

/**
 * The request of a success that adds a member: it names an account nobody knows yet, so that the
 * scenario's members stay as they are. `members` is the members path; `fields` join the email.
 */
export const addingFreshUser =
  (members: (scenario: Scenario) => string, fields: Record<string, unknown> = {}): BuildRequest =>
  async (s) => ({ path: members(s), json: { email: (await s.freshUser()).email, ...fields } });

/**
 * The request of a success that removes a member: `by` first adds a fresh account at `members`
 * (with `fields` beside its email), and the request names that membership.
 */
export const removingFreshMember =
  (by: SignedInRole, members: (scenario: Scenario) => string, fields: Record<string, unknown> = {}): BuildRequest =>
  async (s) => {
    const user = await s.freshUser();
    await s.ok(by, { method: "POST", path: members(s), json: { email: user.email, ...fields } });
    return { path: `${members(s)}/${user.id}` };
  };

/** An id of the right shape that names nothing. */
export const missingId = (prefix: string) => `${prefix}_${"0".repeat(10)}${randomBytes(10).toString("base64url")}`;

/**
 * Runs the security suite of one route: anonymous 401 UNAUTHENTICATED, every refused caller its
 * status with problem+json and the stable code, every allowed caller its success status, nothing
 * changed by a refused attempt, and (optionally) 404 for an object that does not exist.
 */
export function describeAccessSuite(getScenario: () => Scenario, route: AccessRoute) {
  describe(`${route.method} ${route.path}: access`, () => {
    let scenario: Scenario;
    beforeAll(() => {
      scenario = getScenario();
    });

    const send = async (role: Role, build: BuildRequest) => {
      const prepared = await build(scenario);
      return scenario.as(role, { ...prepared, method: route.method });
    };

    it("refuses a caller without credentials with 401 UNAUTHENTICATED", async () => {
      await expectProblem(await send("anonymous", route.request), 401, "UNAUTHENTICATED");
    });

    if (route.refused.length > 0) {
      it.each(route.refused)("refuses %s with %i", async (role, status) => {
        const before = route.probe ? await route.probe(scenario) : undefined;
        await expectProblem(await send(role, route.request), status, codeOf[status]);
        if (route.probe) expect(await route.probe(scenario)).toEqual(before);
      });
    }

    it.each(route.allowed.map((entry) => [entry.as, entry.status, entry] as const))("answers %s with %i", async (role, status, entry) => {
      const response = await send(role, entry.request ?? route.request);
      const result = await readJson(response);
      expect({ status: result.status, body: result.text }).toMatchObject({ status });
      if (status !== 204) expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    });

    if (route.missing) {
      const missing = route.missing;
      it("answers 404 NOT_FOUND for an object that does not exist, even to the allowed caller", async () => {
        await expectProblem(await send(route.allowed[0]!.as, missing), 404, "NOT_FOUND");
      });

      const hidden = route.refused.filter(([, status]) => status === 404).map(([role]) => role);
      if (hidden.length > 0) {
        it.each(hidden)("gives %s the same answer for an invisible object as for a missing one", async (role) => {
          const pick = ({ status, code, title, detail }: Problem) => ({ status, code, title, detail });
          const invisible = await expectProblem(await send(role, route.request), 404, "NOT_FOUND");
          const absent = await expectProblem(await send(role, missing), 404, "NOT_FOUND");
          expect(pick(invisible)).toEqual(pick(absent));
        });
      }
    }
  });
}
