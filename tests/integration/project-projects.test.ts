import { randomBytes } from "node:crypto";
import { createCaller } from "@meridian/api";
import { projectMembersCollection, projectsCollection } from "@meridian/db";
import { authenticateToken } from "@meridian/domain/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { invitationPathFor } from "../support/invitation-links";
import { expectMemberCapHeld } from "../support/member-caps";
import { copyMembers } from "../support/row-copies";
import { holdRows, lockWaiters, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "projects-admin@example.com", password: "projects admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must, createOrganization, addOrganizationMember } = jsonApi(() => server);

type Project = { id: string; name: string; status: string; ownerId: string; organizationId: string | null; createdAt: string };
const createProject = async (owner: Account, json: Record<string, unknown> = { name: `Project ${randomBytes(3).toString("hex")}` }) =>
  (await must("/projects", { method: "POST", token: owner.token, json }, 201)) as Project;
const addMember = (as: Account, projectId: string, email: string, role: string) =>
  server.request(`/projects/${projectId}/members`, { method: "POST", token: as.token, json: { email, role } });
const ids = (items: Array<{ id: string }>) => items.map((item) => item.id).sort();

describe("POST /projects", () => {
  it("creates a project of the caller's, without an organization", async () => {
    const owner = await createAccount(server);
    const response = await server.request("/projects", { method: "POST", token: owner.token, json: { name: "Variable stars" } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      id: expect.any(String),
      name: "Variable stars",
      status: "active",
      ownerId: owner.id,
      organizationId: null,
      createdAt: expect.stringMatching(/Z$/),
    });
  });

  it("creates an organization's project only with can_manage_projects there", async () => {
    const orgOwner = await createAccount(server);
    const manager = await createAccount(server);
    const member = await createAccount(server);
    const outsider = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, manager, { can_manage_projects: true });
    await addOrganizationMember(orgOwner, organization.id, member, { can_manage_members: true, can_manage_observatories: true });

    expect(await createProject(orgOwner, { name: "By owner", organizationId: organization.id })).toMatchObject({
      ownerId: orgOwner.id,
      organizationId: organization.id,
    });
    expect(await createProject(manager, { name: "By manager", organizationId: organization.id })).toMatchObject({
      ownerId: manager.id,
      organizationId: organization.id,
    });
    await expectProblem(
      await server.request("/projects", { method: "POST", token: member.token, json: { name: "No", organizationId: organization.id } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request("/projects", { method: "POST", token: outsider.token, json: { name: "No", organizationId: organization.id } }),
      404,
      "NOT_FOUND",
    );
    expect((await must("/projects", { token: member.token }, 200)).items).toEqual([]);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a name with NUL", { name: "a\u0000" }],
    ["a name with a lone surrogate", { name: "\ud800" }],
    ["a status at creation", { name: "X", status: "paused" }],
    ["an unknown field", { name: "X", ownerId: "usr_x" }],
    ["an organization id of the wrong type", { name: "X", organizationId: 5 }],
  ])("refuses %s with 400", async (_label, json) => {
    const owner = await createAccount(server);
    await expectProblem(await server.request("/projects", { method: "POST", token: owner.token, json }), 400, "VALIDATION_FAILED");
    expect((await must("/projects", { token: owner.token }, 200)).items).toEqual([]);
  });
});

describe("GET /projects", () => {
  it("lists the projects the caller owns or belongs to, and no others", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const own = await createProject(alice);
    const joined = await createProject(bob);
    const foreign = await createProject(bob);
    expect((await addMember(bob, joined.id, alice.email, "member")).status).toBe(201);

    const list = await must("/projects", { token: alice.token }, 200);
    expect(list.nextCursor).toBeNull();
    expect(ids(list.items)).toEqual(ids([own, joined]));
    expect(list.items.find((item: Project) => item.id === joined.id)).toMatchObject({ name: joined.name, ownerId: bob.id, status: "active" });
    expect(ids((await must("/projects", { token: bob.token }, 200)).items)).toEqual(ids([joined, foreign]));
    await expectProblem(await server.request(`/projects/${foreign.id}`, { token: alice.token }), 404, "NOT_FOUND");
  });
});

describe("GET/PUT /projects/{id}", () => {
  it("lets members read, and the owner or a project admin update name and status", async () => {
    const owner = await createAccount(server);
    const admin = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner, { name: "Exoplanets" });
    await addMember(owner, project.id, admin.email, "admin");
    await addMember(owner, project.id, member.email, "member");

    expect(await must(`/projects/${project.id}`, { token: member.token }, 200)).toMatchObject({ id: project.id, name: "Exoplanets", status: "active" });
    await expectProblem(
      await server.request(`/projects/${project.id}`, { method: "PUT", token: member.token, json: { status: "archived" } }),
      403,
      "FORBIDDEN",
    );

    const renamed = await must(`/projects/${project.id}`, { method: "PUT", token: admin.token, json: { name: "Exoplanet transits" } }, 200);
    expect(renamed).toMatchObject({ id: project.id, name: "Exoplanet transits", status: "active", ownerId: owner.id, createdAt: project.createdAt });
    for (const status of ["paused", "completed", "archived", "active"]) {
      expect((await must(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status } }, 200)).status).toBe(status);
    }
    expect(await must(`/projects/${project.id}`, { token: member.token }, 200)).toMatchObject({ name: "Exoplanet transits", status: "active" });
    // A server admin manages any project.
    expect((await must(`/projects/${project.id}`, { method: "PUT", token: adminToken, json: { status: "paused" } }, 200)).status).toBe("paused");
  });

  it.each([
    ["a status outside the enumeration", { status: "done" }],
    ["a status in capitals", { status: "Active" }],
    ["an unknown field", { owner: "me" }],
    ["an organization change", { organizationId: "org_x" }],
    ["an empty name", { name: " " }],
  ])("refuses %s with 400 and changes nothing", async (_label, json) => {
    const owner = await createAccount(server);
    const project = await createProject(owner);
    await expectProblem(await server.request(`/projects/${project.id}`, { method: "PUT", token: owner.token, json }), 400, "VALIDATION_FAILED");
    expect(await must(`/projects/${project.id}`, { token: owner.token }, 200)).toMatchObject({ name: project.name, status: "active" });
  });
});

describe("project members", () => {
  it("adds by exact email in any letter case with a role, owner listed first", async () => {
    const owner = await createAccount(server, { name: "Pat Owner" });
    const admin = await createAccount(server, { name: "Ada Admin" });
    const member = await createAccount(server, { name: "Max Member" });
    const project = await createProject(owner);
    const added = await addMember(owner, project.id, admin.email.toUpperCase(), "admin");
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ userId: admin.id, email: admin.email, name: "Ada Admin", role: "admin", joinedAt: expect.any(String) });
    // A project admin adds members too.
    expect((await addMember(admin, project.id, member.email, "member")).status).toBe(201);

    const members = await must(`/projects/${project.id}/members`, { token: member.token }, 200);
    expect(members.items.map((item: { userId: string; role: string; name: string }) => [item.userId, item.role, item.name])).toEqual([
      [owner.id, "owner", "Pat Owner"],
      [admin.id, "admin", "Ada Admin"],
      [member.id, "member", "Max Member"],
    ]);
    // A plain member adds nobody.
    const extra = await createAccount(server);
    await expectProblem(await addMember(member, project.id, extra.email, "member"), 403, "FORBIDDEN");
  });

  it("refuses unknown users, second memberships and bad roles", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    await expectProblem(await addMember(owner, project.id, `${member.email.split("@")[0]}x@example.com`, "member"), 404, "USER_NOT_FOUND");
    expect((await addMember(owner, project.id, member.email, "member")).status).toBe(201);
    await expectProblem(await addMember(owner, project.id, member.email, "admin"), 409, "ALREADY_MEMBER");
    await expectProblem(await addMember(owner, project.id, owner.email, "member"), 409, "ALREADY_MEMBER");
    for (const role of ["owner", "viewer", ""]) await expectProblem(await addMember(owner, project.id, member.email, role), 400, "VALIDATION_FAILED");
    await expectProblem(
      await server.request(`/projects/${project.id}/members`, { method: "POST", token: owner.token, json: { email: member.email } }),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("never removes the owner (409 OWNER_CANNOT_BE_REMOVED); members leave; admins remove", async () => {
    const owner = await createAccount(server);
    const admin = await createAccount(server);
    const member = await createAccount(server);
    const leaver = await createAccount(server);
    const project = await createProject(owner);
    await addMember(owner, project.id, admin.email, "admin");
    await addMember(owner, project.id, member.email, "member");
    await addMember(owner, project.id, leaver.email, "member");

    for (const as of [owner, admin]) {
      await expectProblem(
        await server.request(`/projects/${project.id}/members/${owner.id}`, { method: "DELETE", token: as.token }),
        409,
        "OWNER_CANNOT_BE_REMOVED",
      );
    }
    await expectProblem(await server.request(`/projects/${project.id}/members/${admin.id}`, { method: "DELETE", token: member.token }), 403, "FORBIDDEN");

    await must(`/projects/${project.id}/members/${leaver.id}`, { method: "DELETE", token: leaver.token }, 204);
    await expectProblem(await server.request(`/projects/${project.id}`, { token: leaver.token }), 404, "NOT_FOUND");
    expect((await must("/projects", { token: leaver.token }, 200)).items).toEqual([]);

    await must(`/projects/${project.id}/members/${member.id}`, { method: "DELETE", token: admin.token }, 204);
    await expectProblem(await server.request(`/projects/${project.id}/members/${member.id}`, { method: "DELETE", token: admin.token }), 404, "NOT_FOUND");
    expect((await must(`/projects/${project.id}/members`, { token: owner.token }, 200)).items.map((item: { userId: string }) => item.userId)).toEqual([
      owner.id,
      admin.id,
    ]);
  });
});

describe("a project deleted while it is changed or joined", () => {
  /**
   * An archived project of its own with one member, whose deletion has begun: it has locked the project's row and
   * waits, at the memberships it deletes, on a hold of the member's row (`release` lets it go on).
   */
  async function deletionUnderWay() {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    expect((await addMember(owner, project.id, member.email, "member")).status).toBe(201);
    await must(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { status: "archived" } }, 200);
    const hold = await holdRows(server.databaseUrl, `select id from project_members where project_id = '${project.id}' for update`);
    const deletion = server.request(`/projects/${project.id}`, { method: "DELETE", token: owner.token });
    await until("the deletion to wait at the memberships", () => hold.waiting(), { intervalMs: 5 });
    return { owner, project, hold, deletion };
  }
  const waitingOnLocks = () => lockWaiters(server.server.runtime.deps.sql);
  const membershipsOf = async (projectId: string) =>
    (await server.server.runtime.deps.sql<Array<{ user_id: string }>>`select user_id from project_members where project_id = ${projectId}`).map(
      (row) => row.user_id,
    );

  it("an update waiting for the deletion finds the project gone: 404, not a 500", async () => {
    const { owner, project, hold, deletion } = await deletionUnderWay();
    try {
      const update = server.request(`/projects/${project.id}`, { method: "PUT", token: owner.token, json: { name: "Too late" } });
      await until("the update to wait for the deletion", async () => (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      expect((await deletion).status).toBe(204);
      await expectProblem(await update, 404, "NOT_FOUND");
    } finally {
      await hold.release();
    }
  });

  it("a member added while it is deleted waits for the deletion and finds the project gone (404), leaving no membership", async () => {
    const { owner, project, hold, deletion } = await deletionUnderWay();
    const joiner = await createAccount(server);
    try {
      const addition = addMember(owner, project.id, joiner.email, "member");
      let answered = false;
      void addition.finally(() => (answered = true));
      await until("the addition to wait for the deletion, or to answer", async () => answered || (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      expect((await deletion).status).toBe(204);
      await expectProblem(await addition, 404, "NOT_FOUND");
    } finally {
      await hold.release();
    }
    expect(await membershipsOf(project.id)).toEqual([]);
  });
});

describe("tRPC projects procedures", () => {
  it("go through the same domain functions, over HTTP and through createCaller", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const created = await server.request("/trpc/projects.create", { method: "POST", token: owner.token, json: { name: "Via tRPC" } });
    expect(created.status).toBe(200);
    const project = await trpcData<Project>(created);
    expect(await must(`/projects/${project.id}`, { token: owner.token }, 200)).toMatchObject({ id: project.id, name: "Via tRPC", ownerId: owner.id });

    const invalid = await server.request("/trpc/projects.update", { method: "POST", token: owner.token, json: { id: project.id, update: { status: "done" } } });
    expect(invalid.status).toBe(400);
    expect(await trpcErrorCode(invalid)).toBe("VALIDATION_FAILED");

    // In-process caller over the same deps as the running server.
    const deps = server.server.runtime.deps;
    const context = async (token: string) => ({
      deps,
      principal: await authenticateToken({ deps, token }),
      credentialSource: "bearer" as const,
      token,
      client: { ip: null, userAgent: null },
      requestId: "test",
      secureCookies: false,
      linkOrigin: "http://127.0.0.1",
      setSessionToken: () => {},
    });
    const asOwner = createCaller(await context(owner.token));
    expect(await asOwner.projects.update({ id: project.id, update: { status: "completed" } })).toMatchObject({ id: project.id, status: "completed" });
    const asOutsider = createCaller(await context(outsider.token));
    await expect(asOutsider.projects.get({ id: project.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await must(`/projects/${project.id}`, { token: owner.token }, 200)).status).toBe("completed");
  });
});

describe("how many projects one user owns and belongs to", () => {
  const OWNED = 500;
  const MEMBERSHIPS = 1000;
  /** Runs `write` for 0..count-1, fifty at a time: the rows the API's creations are then tried against. */
  const seed = async <T>(count: number, write: (index: number) => Promise<T>) => {
    const written: T[] = [];
    for (let start = 0; start < count; start += 50)
      written.push(...(await Promise.all(Array.from({ length: Math.min(50, count - start) }, (_, offset) => write(start + offset)))));
    return written;
  };
  const seedProjects = (ownerId: string, count: number) =>
    seed(count, (index) =>
      projectsCollection.insert(server.server.runtime.deps.db, { name: `Seeded ${index}`, status: "active", ownerId, organizationId: null }),
    );

  it(`refuses a user's project past ${OWNED} owned (409 CONFLICT), even to concurrent creations, and lists every one`, async () => {
    const owner = await createAccount(server);
    await seedProjects(owner.id, OWNED - 3);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => server.request("/projects", { method: "POST", token: owner.token, json: { name: `Last ${index}` } })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    for (const answer of answers.filter((answer) => answer.status !== 201))
      expect((await expectProblem(answer, 409, "CONFLICT")).detail).toBe(`You own ${OWNED} projects, the most one may; delete an archived one first`);
    const list = (await must("/projects", { token: owner.token })) as { items: Project[]; nextCursor: null };
    expect(list.items).toHaveLength(OWNED);
    expect(list.nextCursor).toBeNull();
  });

  it(`refuses a membership past ${MEMBERSHIPS} (409 CONFLICT), added or by invitation, and lists every project`, async () => {
    const joiner = await createAccount(server);
    const [owner, seedOwner] = [await createAccount(server), await createAccount(server)];
    const others = await seedProjects(seedOwner.id, MEMBERSHIPS - 1);
    await seed(others.length, (index) =>
      projectMembersCollection.insert(server.server.runtime.deps.db, { projectId: others[index]!.id, userId: joiner.id, role: "member" }),
    );
    const [last, beyond, invited] = [await createProject(owner), await createProject(owner), await createProject(owner)];
    expect((await addMember(owner, last.id, joiner.email, "member")).status).toBe(201);
    const refused = await expectProblem(await addMember(owner, beyond.id, joiner.email, "member"), 409, "CONFLICT");
    expect(refused.detail).toBe(`The account already belongs to ${MEMBERSHIPS} projects, the most one may; it must leave one first`);
    // An invitation is refused at its acceptance the same way, and still works once there is room.
    await must(`/projects/${invited.id}/invitations`, { method: "POST", token: owner.token, json: { email: joiner.email, role: "member" } }, 201);
    const token = (await invitationPathFor(server, joiner.email)).split("/")[1]!;
    const accept = () => server.request("/api/v1/invitations/accept", { method: "POST", token: joiner.token, json: { token } });
    await expectProblem(await accept(), 409, "CONFLICT");
    const list = (await must("/projects", { token: joiner.token })) as { items: Project[] };
    expect(list.items).toHaveLength(MEMBERSHIPS);
    expect(ids(list.items)).not.toContain(beyond.id);
    // Leaving one makes room.
    expect((await server.request(`/projects/${last.id}/members/${joiner.id}`, { method: "DELETE", token: joiner.token })).status).toBe(204);
    expect((await accept()).status).toBe(200);
  });
});

describe("how many members one project has", () => {
  const CAP = 10_000;
  const sql = () => server.server.runtime.deps.sql;
  const stored = async (projectId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from project_members where project_id = ${projectId}`)[0]!.count;
  /** A project of `size` members beside its owner: one added through the API, the rest written as copies of that one. */
  const projectOf = async (owner: Account, size: number) => {
    const project = await createProject(owner);
    const seed = await createAccount(server);
    expect((await addMember(owner, project.id, seed.email, "member")).status).toBe(201);
    const membership = { table: "project_members", scopeColumn: "project_id", scopeId: project.id, column: "user_id", field: "userId" };
    await copyMembers(sql(), { userId: seed.id, copies: size - 1, membership });
    return project;
  };
  const refusal = `The project has ${CAP} members, the most one may have; one must leave first`;

  it(`refuses a member past ${CAP} with 409 CONFLICT, added or by invitation, stores nothing, and lists every one`, async () => {
    const owner = await createAccount(server);
    const project = await projectOf(owner, CAP - 1);
    await expectMemberCapHeld({
      server,
      owner,
      base: `/projects/${project.id}`,
      cap: CAP,
      refusal,
      add: (person) => addMember(owner, project.id, person.email, "member"),
      grant: { role: "member" },
      stored: () => stored(project.id),
      // The owner first, then every member.
      listed: async () =>
        ((await must(`/projects/${project.id}/members`, { token: owner.token })) as { items: Array<{ userId: string }> }).items.map((member) => member.userId),
      extra: 1,
    });
  });

  it("lets exactly one of two additions at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount(server);
    const project = await projectOf(owner, CAP - 1);
    const [first, second] = [await createAccount(server), await createAccount(server)];
    // Both hold the project's row FOR NO KEY UPDATE, which orders them: the first waits at the held row, the second queues behind.
    const hold = await holdRows(server.databaseUrl, `select id from projects where id = '${project.id}' for update`);
    const answers = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () => addMember(owner, project.id, first.email, "member"),
      second: () => addMember(owner, project.id, second.email, "member"),
    });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await stored(project.id)).toBe(CAP);
  });
});
