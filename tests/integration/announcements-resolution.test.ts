import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "motd-resolution-admin@example.com", password: "motd resolution admin password" };
let server: TestServer;
let adminToken: string;
let adminId: string;
const { must, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(() => server);

type Announcement = {
  id: string;
  status: string;
  recipientCount: number;
  acknowledgedCount: number;
  targets?: Record<string, { all: boolean; ids: string[] }>;
};
type Recipient = { userId: string; status: string; via: string };

const body = (targets: Record<string, unknown>) => ({ title: "Notice", message: "Please read", severity: "info", deliveryType: "message", targets });
const announce = async (targets: Record<string, unknown>) =>
  (await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(targets) }, 201)) as Announcement;
const preview = async (targets: Record<string, unknown>) =>
  ((await must("/api/v1/system/motd/preview", { method: "POST", token: adminToken, json: { targets } }, 200)) as { recipientCount: number }).recipientCount;
const recipients = async (id: string) => {
  const view = (await must(`/api/v1/system/motd/${id}/recipients?limit=200`, { token: adminToken }, 200)) as {
    items: Recipient[];
    nextCursor: string | null;
    counts: { total: number };
  };
  expect(view.nextCursor).toBeNull();
  return view;
};
const systemCount = async () => (await must("/api/v1/system/motd?limit=200", { token: adminToken })).items.length as number;
const pendingIds = async (account: Account) =>
  ((await must("/api/v1/user/motd/pending", { token: account.token })).items as Array<{ id: string }>).map((item) => item.id);
const sorted = (ids: string[]) => [...ids].sort();

/**
 * Creates the announcement (after previewing it) and checks what every creation must hold:
 * recipientCount equals the preview, the recipients view has each user once and as many rows.
 * Returns the recipients by user id.
 */
async function resolve(targets: Record<string, unknown>) {
  const previewed = await preview(targets);
  const created = await announce(targets);
  expect(created.recipientCount).toBe(previewed);
  const view = await recipients(created.id);
  const ids = view.items.map((item) => item.userId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBe(created.recipientCount);
  expect(view.counts.total).toBe(created.recipientCount);
  return { created, ids, via: Object.fromEntries(view.items.map((item) => [item.userId, item.via])) as Record<string, string> };
}

/**
 * The world: organization A (owner, an admin by members, an admin by observatories, a regular
 * member); organization B (owner and member) attached to observatory X with no grant at all;
 * observatory X (user-owned, a viewer and an admin added directly, A a member with can_view);
 * observatory Y owned by organization A; project P (personal, an admin and a member); a stranger.
 */
const people = {} as Record<
  | "orgOwner"
  | "orgAdminMembers"
  | "orgAdminObservatories"
  | "orgRegular"
  | "bOwner"
  | "bMember"
  | "obsOwner"
  | "obsViewer"
  | "obsAdmin"
  | "projectOwner"
  | "projectAdmin"
  | "projectMember"
  | "stranger",
  Account
>;
let orgA: string;
let orgB: string;
let observatoryX: string;
let observatoryY: string;
let projectP: string;

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  adminId = (await must("/api/v1/auth/me", { token: adminToken })).id;
  const tag = randomBytes(3).toString("hex");
  for (const role of Object.keys({
    orgOwner: 0,
    orgAdminMembers: 0,
    orgAdminObservatories: 0,
    orgRegular: 0,
    bOwner: 0,
    bMember: 0,
    obsOwner: 0,
    obsViewer: 0,
    obsAdmin: 0,
    projectOwner: 0,
    projectAdmin: 0,
    projectMember: 0,
    stranger: 0,
  }) as Array<keyof typeof people>) {
    people[role] = await createAccount(server, { email: `${role.toLowerCase()}-${tag}@example.com`, name: `${role} ${tag}` });
  }
  orgA = (await createOrganization(people.orgOwner)).id;
  await addOrganizationMember(people.orgOwner, orgA, people.orgAdminMembers, { can_manage_members: true });
  await addOrganizationMember(people.orgOwner, orgA, people.orgAdminObservatories, { can_manage_observatories: true });
  await addOrganizationMember(people.orgOwner, orgA, people.orgRegular);
  orgB = (await createOrganization(people.bOwner)).id;
  await addOrganizationMember(people.bOwner, orgB, people.bMember);

  observatoryX = (await createObservatory(people.obsOwner)).id;
  await addObservatoryMember(people.obsOwner, observatoryX, people.obsViewer, { can_view: true });
  await addObservatoryMember(people.obsOwner, observatoryX, people.obsAdmin, { can_admin: true });
  await addObservatoryOrganization(people.obsOwner, observatoryX, orgA, { can_view: true });
  await addObservatoryOrganization(people.obsOwner, observatoryX, orgB, { can_view: false, can_observe: false, can_operate: false, can_admin: false });
  observatoryY = (await createObservatory(people.orgOwner, { name: `Org observatory ${tag}`, organizationId: orgA })).id;

  projectP = (await must("/projects", { method: "POST", token: people.projectOwner.token, json: { name: `Project ${tag}` } }, 201)).id;
  await must(
    `/projects/${projectP}/members`,
    { method: "POST", token: people.projectOwner.token, json: { email: people.projectAdmin.email, role: "admin" } },
    201,
  );
  await must(
    `/projects/${projectP}/members`,
    { method: "POST", token: people.projectOwner.token, json: { email: people.projectMember.email, role: "member" } },
    201,
  );
});
afterAll(() => server?.stop());

const idsOf = (...roles: Array<keyof typeof people>) => sorted(roles.map((role) => people[role].id));
const orgAMembers = ["orgOwner", "orgAdminMembers", "orgAdminObservatories", "orgRegular"] as const;

describe("recipients by target", () => {
  it("selected users: exactly those, once each, via user", async () => {
    const { ids, via, created } = await resolve({ users: { ids: [people.stranger.id, people.bMember.id, people.stranger.id] } });
    expect(sorted(ids)).toEqual(idsOf("stranger", "bMember"));
    expect(Object.values(via)).toEqual(["user", "user"]);
    expect(created.targets).toEqual({ users: { all: false, ids: [people.stranger.id, people.bMember.id] } });
  });

  it("a selected observatory: owner, direct members and every member of a member organization with a grant", async () => {
    const { ids, via } = await resolve({ observatories: { ids: [observatoryX] } });
    expect(sorted(ids)).toEqual(idsOf("obsOwner", "obsViewer", "obsAdmin", ...orgAMembers));
    expect(new Set(Object.values(via))).toEqual(new Set(["observatory"]));
    // The recipients are exactly the users who can see the observatory.
    for (const [role, account] of Object.entries(people)) {
      const response = await server.request(`/observatories/${observatoryX}/permissions/me`, { token: account.token });
      expect({ role, sees: response.status === 200 }).toEqual({ role, sees: ids.includes(account.id) });
    }
  });

  it("an observatory owned by an organization: every member of that organization, owner included", async () => {
    const { ids } = await resolve({ observatories: { ids: [observatoryY] } });
    expect(sorted(ids)).toEqual(idsOf(...orgAMembers));
  });

  it("observatories.all: everyone with access to any observatory, and nobody else", async () => {
    const { ids, via } = await resolve({ observatories: { all: true } });
    expect(ids).toEqual(expect.arrayContaining(idsOf("obsOwner", "obsViewer", "obsAdmin", ...orgAMembers)));
    for (const outsider of ["bOwner", "bMember", "stranger", "projectOwner", "projectAdmin", "projectMember"] as const)
      expect(ids).not.toContain(people[outsider].id);
    expect(ids).not.toContain(adminId);
    expect(new Set(Object.values(via))).toEqual(new Set(["observatory"]));
  });

  it("selected organizations: every member, owner included; organizations.all adds the others", async () => {
    const one = await resolve({ organizations: { ids: [orgA] } });
    expect(sorted(one.ids)).toEqual(idsOf(...orgAMembers));
    expect(new Set(Object.values(one.via))).toEqual(new Set(["organization"]));
    const two = await resolve({ organizations: { ids: [orgA, orgB] } });
    expect(sorted(two.ids)).toEqual(idsOf(...orgAMembers, "bOwner", "bMember"));
    const all = await resolve({ organizations: { all: true } });
    expect(all.ids).toEqual(expect.arrayContaining(two.ids));
    expect(all.ids).not.toContain(people.stranger.id);
    expect(all.ids).not.toContain(people.obsViewer.id);
  });

  it("selected projects: owner and members; projects.all the same here", async () => {
    const one = await resolve({ projects: { ids: [projectP] } });
    expect(sorted(one.ids)).toEqual(idsOf("projectOwner", "projectAdmin", "projectMember"));
    expect(new Set(Object.values(one.via))).toEqual(new Set(["project"]));
    const all = await resolve({ projects: { all: true } });
    expect(all.ids).toEqual(expect.arrayContaining(one.ids));
    expect(all.ids).not.toContain(people.stranger.id);
  });

  it("targets combine, each user counted once, via the most specific target", async () => {
    const targets = {
      users: { ids: [people.orgRegular.id, people.stranger.id, people.projectMember.id] },
      observatories: { ids: [observatoryX, observatoryY] },
      organizations: { ids: [orgA, orgB] },
      projects: { ids: [projectP] },
    };
    const { ids, via, created } = await resolve(targets);
    const expected = idsOf(
      "stranger",
      "obsOwner",
      "obsViewer",
      "obsAdmin",
      ...orgAMembers,
      "bOwner",
      "bMember",
      "projectOwner",
      "projectAdmin",
      "projectMember",
    );
    expect(sorted(ids)).toEqual(expected);
    expect(created.recipientCount).toBe(expected.length);
    // Named users are reached as users, whatever else reaches them.
    expect(via[people.orgRegular.id]).toBe("user");
    expect(via[people.projectMember.id]).toBe("user");
    expect(via[people.stranger.id]).toBe("user");
    // Reached one way only: that way.
    expect(via[people.obsViewer.id]).toBe("observatory");
    expect(via[people.bMember.id]).toBe("organization");
    expect(via[people.projectAdmin.id]).toBe("project");
    // Reached through both an observatory and an organization: one of them, never twice.
    expect(["observatory", "organization"]).toContain(via[people.orgOwner.id]);
  });

  it("users.all with other targets: everyone once, the narrower target named", async () => {
    const { total } = await must("/api/v1/system/motd/target-options?kind=users&limit=1", { token: adminToken }, 200);
    const { ids, via, created } = await resolve({ users: { all: true }, organizations: { ids: [orgA] }, projects: { all: true } });
    expect(ids.length).toBe(total);
    expect(created).toMatchObject({ recipientCount: total, acknowledgedCount: 1 });
    for (const role of orgAMembers) expect(via[people[role].id]).toBe("organization");
    expect(via[people.projectMember.id]).toBe("project");
    expect(via[people.stranger.id]).toBe("all_users");
    expect(via[adminId]).toBe("all_users");
    // Keep the other tests' pending lists to their own announcements.
    await must(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "Test over" } }, 200);
  });

  it("ids given together with all are harmless", async () => {
    const { ids } = await resolve({ organizations: { all: true, ids: [orgA] } });
    expect(ids).toEqual(expect.arrayContaining(idsOf(...orgAMembers, "bOwner", "bMember")));
  });
});

describe("refusals", () => {
  it("refuses unknown ids of every kind with 400, listing each by path, and creates nothing", async () => {
    const before = await systemCount();
    const strangerBefore = await pendingIds(people.stranger);
    const targets = {
      users: { ids: [people.stranger.id, "usr_nope"] },
      observatories: { ids: ["obs_gone", observatoryX] },
      organizations: { ids: [orgA, people.orgOwner.id] },
      projects: { ids: ["prj_one", projectP, "prj_two"] },
    };
    const expected = [
      { path: "targets.users.ids.1", message: expect.stringContaining("usr_nope") },
      { path: "targets.observatories.ids.0", message: expect.stringContaining("obs_gone") },
      { path: "targets.organizations.ids.1", message: expect.stringContaining(people.orgOwner.id) },
      { path: "targets.projects.ids.0", message: expect.stringContaining("prj_one") },
      { path: "targets.projects.ids.2", message: expect.stringContaining("prj_two") },
    ];
    const problem = await expectProblem(
      await server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(targets) }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual(expected);
    for (const id of ["usr_nope", "obs_gone", people.orgOwner.id, "prj_one", "prj_two"]) expect(problem.detail).toContain(id);
    const previewed = await expectProblem(
      await server.request("/api/v1/system/motd/preview", { method: "POST", token: adminToken, json: { targets } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(previewed.errors).toEqual(expected);
    expect(await systemCount()).toBe(before);
    expect(await pendingIds(people.stranger)).toEqual(strangerBefore);
  });

  it.each([
    ["users", (id: string) => ({ users: { ids: [id] } })],
    ["observatories", (id: string) => ({ observatories: { ids: [id] } })],
    ["organizations", (id: string) => ({ organizations: { ids: [id] } })],
    ["projects", (id: string) => ({ projects: { ids: [id] } })],
  ])("refuses an unknown %s id alone", async (kind, targets) => {
    const problem = await expectProblem(
      await server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(targets("x_missing")) }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors).toEqual([{ path: `targets.${kind}.ids.0`, message: expect.stringContaining("x_missing") }]);
  });

  it.each([
    ["no targets at all", {}],
    ["empty id lists", { users: { ids: [] }, projects: { ids: [] } }],
    ["all: false everywhere", { users: { all: false }, observatories: { all: false }, organizations: { all: false }, projects: { all: false } }],
  ])("refuses %s with 400 NO_RECIPIENTS and creates nothing", async (_label, targets) => {
    const before = await systemCount();
    await expectProblem(await server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json: body(targets) }), 400, "NO_RECIPIENTS");
    expect(await systemCount()).toBe(before);
  });
});

describe("resolution happens once, at creation", () => {
  it("a user who joins afterwards is not a recipient; one who leaves still is", async () => {
    const owner = await createAccount(server);
    const leaver = await createAccount(server);
    const latecomer = await createAccount(server);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, leaver);
    const { created, ids } = await resolve({ organizations: { ids: [organization.id] } });
    expect(sorted(ids)).toEqual(sorted([owner.id, leaver.id]));

    await addOrganizationMember(owner, organization.id, latecomer);
    await must(`/organizations/${organization.id}/members/${leaver.id}`, { method: "DELETE", token: owner.token });
    expect(await preview({ organizations: { ids: [organization.id] } })).toBe(2);

    const after = await recipients(created.id);
    expect(sorted(after.items.map((item) => item.userId))).toEqual(sorted([owner.id, leaver.id]));
    expect((await must("/api/v1/system/motd?limit=200", { token: adminToken })).items.find((item: Announcement) => item.id === created.id)).toMatchObject({
      recipientCount: 2,
    });
    expect(await pendingIds(latecomer)).not.toContain(created.id);
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: latecomer.token }), 404, "NOT_FOUND");
    expect(await pendingIds(leaver)).toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: leaver.token }, 200);
  });

  it("a user who gains observatory access afterwards is not a recipient", async () => {
    const owner = await createAccount(server);
    const viewer = await createAccount(server);
    const observatory = await createObservatory(owner);
    const { created } = await resolve({ observatories: { ids: [observatory.id] } });
    expect(created.recipientCount).toBe(1);
    await addObservatoryMember(owner, observatory.id, viewer, { can_view: true });
    expect(await preview({ observatories: { ids: [observatory.id] } })).toBe(2);
    expect(await pendingIds(viewer)).not.toContain(created.id);
  });
});

describe("POST /api/v1/system/motd/preview", () => {
  it("counts without creating anything, the same number creation gives", async () => {
    const before = await systemCount();
    const cases = [
      { users: { ids: [people.stranger.id] } },
      { observatories: { ids: [observatoryX] } },
      { organizations: { ids: [orgA] }, projects: { ids: [projectP] } },
      { users: { ids: [people.orgOwner.id] }, organizations: { ids: [orgA] } },
      { observatories: { all: true }, organizations: { all: true }, projects: { all: true } },
    ];
    const counts = [];
    for (const targets of cases) counts.push(await preview(targets));
    expect(counts.slice(0, 4)).toEqual([1, 7, 7, 4]);
    expect(await systemCount()).toBe(before);
    expect(await preview({})).toBe(0);
    for (const [index, targets] of cases.entries()) expect((await announce(targets)).recipientCount).toBe(counts[index]);
  });
});
