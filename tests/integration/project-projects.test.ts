import { randomBytes } from "node:crypto";
import { projectMembersCollection, projectsCollection } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invitationPathFor } from "../support/invitation-links";
import { expectMemberCapHeldThroughCaller } from "../support/member-caps";
import { copyMembers } from "../support/row-copies";
import { holdRows, lockWaiters, queuedBehindHold } from "../support/table-hold";
import { answerOf, createOrganizationAs, expectRefusal, startTestRuntime, type CallerAccount, type TestRuntime } from "../support/test-runtime";
import { until } from "../support/until";

// Who may create, read, change, join and delete a project, and the caps, are the domain's rules: through the
// app router's caller, on a runtime without HTTP. The REST faces of these operations (statuses of success,
// problem+json, 401 before input) are project-access's and the operation walks'; tRPC over HTTP is trpc-bad-input's.
const ADMIN = { email: "projects-admin@example.com", password: "projects admin password" };
let runtime: TestRuntime;
let serverAdmin: CallerAccount;
beforeAll(async () => {
  runtime = await startTestRuntime({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } });
  serverAdmin = await runtime.signIn(ADMIN);
});
afterAll(() => runtime?.stop());

type Account = CallerAccount;
type CreateInput = Parameters<Account["caller"]["projects"]["create"]>[0];
type UpdateInput = Parameters<Account["caller"]["projects"]["update"]>[0]["update"];
type Role = Parameters<Account["caller"]["projects"]["addMember"]>[0]["role"];
const createAccount = (fields: { name?: string } = {}) => runtime.signup(fields);
const createProject = (owner: Account, input: CreateInput = { name: `Project ${randomBytes(3).toString("hex")}` }) => owner.caller.projects.create(input);
const addMember = (as: Account, projectId: string, email: string, role: string) => as.caller.projects.addMember({ id: projectId, email, role: role as Role });
const removeMember = (as: Account, projectId: string, userId: string) => as.caller.projects.removeMember({ id: projectId, userId });
const updateProject = (as: Account, projectId: string, update: Record<string, unknown>) =>
  as.caller.projects.update({ id: projectId, update: update as UpdateInput });
const projectsOf = (as: Account) => as.caller.projects.list();
const membersOf = async (as: Account, projectId: string) => (await as.caller.projects.members({ id: projectId })).items;
const ids = (items: Array<{ id: string }>) => items.map((item) => item.id).sort();

describe("projects.create (POST /projects)", () => {
  it("creates a project of the caller's, without an organization", async () => {
    const owner = await createAccount();
    expect(await owner.caller.projects.create({ name: "Variable stars" })).toMatchObject({
      id: expect.any(String),
      name: "Variable stars",
      status: "active",
      ownerId: owner.id,
      organizationId: null,
      createdAt: expect.stringMatching(/Z$/),
    });
  });

  it("creates an organization's project only with can_manage_projects there", async () => {
    const orgOwner = await createAccount();
    const manager = await createAccount();
    const member = await createAccount();
    const outsider = await createAccount();
    const organization = await createOrganizationAs(orgOwner);
    await orgOwner.caller.organizations.addMember({ id: organization.id, email: manager.email, permissions: { can_manage_projects: true } });
    await orgOwner.caller.organizations.addMember({
      id: organization.id,
      email: member.email,
      permissions: { can_manage_members: true, can_manage_observatories: true },
    });

    expect(await createProject(orgOwner, { name: "By owner", organizationId: organization.id })).toMatchObject({
      ownerId: orgOwner.id,
      organizationId: organization.id,
    });
    expect(await createProject(manager, { name: "By manager", organizationId: organization.id })).toMatchObject({
      ownerId: manager.id,
      organizationId: organization.id,
    });
    await expectRefusal(createProject(member, { name: "No", organizationId: organization.id }), 403, "FORBIDDEN");
    await expectRefusal(createProject(outsider, { name: "No", organizationId: organization.id }), 404, "NOT_FOUND");
    expect((await projectsOf(member)).items).toEqual([]);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a name with NUL", { name: "a\u0000" }],
    ["a name with a lone surrogate", { name: "\ud800" }],
    ["a status at creation", { name: "X", status: "paused" }],
    ["an unknown field", { name: "X", ownerId: "usr_x" }],
    ["an organization id of the wrong type", { name: "X", organizationId: 5 }],
  ])("refuses %s with 400", async (_label, input) => {
    const owner = await createAccount();
    await expectRefusal(createProject(owner, input as CreateInput), 400, "VALIDATION_FAILED");
    expect((await projectsOf(owner)).items).toEqual([]);
  });
});

describe("projects.list (GET /projects)", () => {
  it("lists the projects the caller owns or belongs to, and no others", async () => {
    const alice = await createAccount();
    const bob = await createAccount();
    const own = await createProject(alice);
    const joined = await createProject(bob);
    const foreign = await createProject(bob);
    await addMember(bob, joined.id, alice.email, "member");

    const list = await projectsOf(alice);
    expect(list.nextCursor).toBeNull();
    expect(ids(list.items)).toEqual(ids([own, joined]));
    expect(list.items.find((item) => item.id === joined.id)).toMatchObject({ name: joined.name, ownerId: bob.id, status: "active" });
    expect(ids((await projectsOf(bob)).items)).toEqual(ids([joined, foreign]));
    await expectRefusal(alice.caller.projects.get({ id: foreign.id }), 404, "NOT_FOUND");
  });
});

describe("projects.get and projects.update (GET/PUT /projects/{id})", () => {
  it("lets members read, and the owner or a project admin update name and status", async () => {
    const owner = await createAccount();
    const admin = await createAccount();
    const member = await createAccount();
    const project = await createProject(owner, { name: "Exoplanets" });
    await addMember(owner, project.id, admin.email, "admin");
    await addMember(owner, project.id, member.email, "member");

    expect(await member.caller.projects.get({ id: project.id })).toMatchObject({ id: project.id, name: "Exoplanets", status: "active" });
    await expectRefusal(updateProject(member, project.id, { status: "archived" }), 403, "FORBIDDEN");

    const renamed = await updateProject(admin, project.id, { name: "Exoplanet transits" });
    expect(renamed).toMatchObject({ id: project.id, name: "Exoplanet transits", status: "active", ownerId: owner.id, createdAt: project.createdAt });
    for (const status of ["paused", "completed", "archived", "active"]) {
      expect((await updateProject(owner, project.id, { status })).status).toBe(status);
    }
    expect(await member.caller.projects.get({ id: project.id })).toMatchObject({ name: "Exoplanet transits", status: "active" });
    // A server admin manages any project.
    expect((await updateProject(serverAdmin, project.id, { status: "paused" })).status).toBe("paused");
  });

  it.each([
    ["a status outside the enumeration", { status: "done" }],
    ["a status in capitals", { status: "Active" }],
    ["an unknown field", { owner: "me" }],
    ["an organization change", { organizationId: "org_x" }],
    ["an empty name", { name: " " }],
  ])("refuses %s with 400 and changes nothing", async (_label, update) => {
    const owner = await createAccount();
    const project = await createProject(owner);
    await expectRefusal(updateProject(owner, project.id, update), 400, "VALIDATION_FAILED");
    expect(await owner.caller.projects.get({ id: project.id })).toMatchObject({ name: project.name, status: "active" });
  });
});

describe("project members", () => {
  it("adds by exact email in any letter case with a role, owner listed first", async () => {
    const owner = await createAccount({ name: "Pat Owner" });
    const admin = await createAccount({ name: "Ada Admin" });
    const member = await createAccount({ name: "Max Member" });
    const project = await createProject(owner);
    const added = await addMember(owner, project.id, admin.email.toUpperCase(), "admin");
    expect(added).toEqual({ userId: admin.id, email: admin.email, name: "Ada Admin", role: "admin", joinedAt: expect.any(String) });
    // A project admin adds members too.
    await addMember(admin, project.id, member.email, "member");

    expect((await membersOf(member, project.id)).map((item) => [item.userId, item.role, item.name])).toEqual([
      [owner.id, "owner", "Pat Owner"],
      [admin.id, "admin", "Ada Admin"],
      [member.id, "member", "Max Member"],
    ]);
    // A plain member adds nobody.
    const extra = await createAccount();
    await expectRefusal(addMember(member, project.id, extra.email, "member"), 403, "FORBIDDEN");
  });

  it("refuses unknown users, second memberships and bad roles", async () => {
    const owner = await createAccount();
    const member = await createAccount();
    const project = await createProject(owner);
    await expectRefusal(addMember(owner, project.id, `${member.email.split("@")[0]}x@example.com`, "member"), 404, "USER_NOT_FOUND");
    await addMember(owner, project.id, member.email, "member");
    await expectRefusal(addMember(owner, project.id, member.email, "admin"), 409, "ALREADY_MEMBER");
    await expectRefusal(addMember(owner, project.id, owner.email, "member"), 409, "ALREADY_MEMBER");
    for (const role of ["owner", "viewer", ""]) await expectRefusal(addMember(owner, project.id, member.email, role), 400, "VALIDATION_FAILED");
    await expectRefusal(
      owner.caller.projects.addMember({ id: project.id, email: member.email } as Parameters<Account["caller"]["projects"]["addMember"]>[0]),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("never removes the owner (409 OWNER_CANNOT_BE_REMOVED); members leave; admins remove", async () => {
    const owner = await createAccount();
    const admin = await createAccount();
    const member = await createAccount();
    const leaver = await createAccount();
    const project = await createProject(owner);
    await addMember(owner, project.id, admin.email, "admin");
    await addMember(owner, project.id, member.email, "member");
    await addMember(owner, project.id, leaver.email, "member");

    for (const as of [owner, admin]) {
      await expectRefusal(removeMember(as, project.id, owner.id), 409, "OWNER_CANNOT_BE_REMOVED");
    }
    await expectRefusal(removeMember(member, project.id, admin.id), 403, "FORBIDDEN");

    await removeMember(leaver, project.id, leaver.id);
    await expectRefusal(leaver.caller.projects.get({ id: project.id }), 404, "NOT_FOUND");
    expect((await projectsOf(leaver)).items).toEqual([]);

    await removeMember(admin, project.id, member.id);
    await expectRefusal(removeMember(admin, project.id, member.id), 404, "NOT_FOUND");
    expect((await membersOf(owner, project.id)).map((item) => item.userId)).toEqual([owner.id, admin.id]);
  });
});

describe("a project deleted while it is changed or joined", () => {
  /**
   * An archived project of its own with one member, whose deletion has begun: it has locked the project's row and
   * waits, at the memberships it deletes, on a hold of the member's row (`release` lets it go on).
   */
  async function deletionUnderWay() {
    const owner = await createAccount();
    const member = await createAccount();
    const project = await createProject(owner);
    await addMember(owner, project.id, member.email, "member");
    await updateProject(owner, project.id, { status: "archived" });
    const hold = await holdRows(runtime.databaseUrl, `select id from project_members where project_id = '${project.id}' for update`);
    const deletion = answerOf(owner.caller.projects.delete({ id: project.id }), 204);
    await until("the deletion to wait at the memberships", () => hold.waiting(), { intervalMs: 5 });
    return { owner, project, hold, deletion };
  }
  const waitingOnLocks = () => lockWaiters(runtime.deps.sql);
  const membershipsOf = async (projectId: string) =>
    (await runtime.deps.sql<Array<{ user_id: string }>>`select user_id from project_members where project_id = ${projectId}`).map((row) => row.user_id);

  it("an update waiting for the deletion finds the project gone: 404, not a 500", async () => {
    const { owner, project, hold, deletion } = await deletionUnderWay();
    try {
      const update = answerOf(updateProject(owner, project.id, { name: "Too late" }), 200);
      await until("the update to wait for the deletion", async () => (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      expect((await deletion).status).toBe(204);
      expect(await update).toEqual({ status: 404, code: "NOT_FOUND" });
    } finally {
      await hold.release();
    }
  });

  it("a member added while it is deleted waits for the deletion and finds the project gone (404), leaving no membership", async () => {
    const { owner, project, hold, deletion } = await deletionUnderWay();
    const joiner = await createAccount();
    try {
      const addition = answerOf(addMember(owner, project.id, joiner.email, "member"), 201);
      let answered = false;
      void addition.finally(() => (answered = true));
      await until("the addition to wait for the deletion, or to answer", async () => answered || (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      await hold.release();
      expect((await deletion).status).toBe(204);
      expect(await addition).toEqual({ status: 404, code: "NOT_FOUND" });
    } finally {
      await hold.release();
    }
    expect(await membershipsOf(project.id)).toEqual([]);
  });
});

describe("how many projects one user owns and belongs to", () => {
  const OWNED = 500;
  const MEMBERSHIPS = 1000;
  /** Runs `write` for 0..count-1, fifty at a time: the rows the caller's creations are then tried against. */
  const seed = async <T>(count: number, write: (index: number) => Promise<T>) => {
    const written: T[] = [];
    for (let start = 0; start < count; start += 50)
      written.push(...(await Promise.all(Array.from({ length: Math.min(50, count - start) }, (_, offset) => write(start + offset)))));
    return written;
  };
  const seedProjects = (ownerId: string, count: number) =>
    seed(count, (index) => projectsCollection.insert(runtime.deps.db, { name: `Seeded ${index}`, status: "active", ownerId, organizationId: null }));

  it(`refuses a user's project past ${OWNED} owned (409 CONFLICT), even to concurrent creations, and lists every one`, async () => {
    const owner = await createAccount();
    await seedProjects(owner.id, OWNED - 3);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        createProject(owner, { name: `Last ${index}` }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(3);
    for (const answer of answers.filter((answer) => answer !== undefined))
      expect((await expectRefusal(Promise.reject(answer as Error), 409, "CONFLICT")).message).toBe(
        `You own ${OWNED} projects, the most one may; delete an archived one first`,
      );
    const list = await projectsOf(owner);
    expect(list.items).toHaveLength(OWNED);
    expect(list.nextCursor).toBeNull();
  });

  it(`refuses a membership past ${MEMBERSHIPS} (409 CONFLICT), added or by invitation, and lists every project`, async () => {
    const joiner = await createAccount();
    const [owner, seedOwner] = [await createAccount(), await createAccount()];
    const others = await seedProjects(seedOwner.id, MEMBERSHIPS - 1);
    await seed(others.length, (index) => projectMembersCollection.insert(runtime.deps.db, { projectId: others[index]!.id, userId: joiner.id, role: "member" }));
    const [last, beyond, invited] = [await createProject(owner), await createProject(owner), await createProject(owner)];
    await addMember(owner, last.id, joiner.email, "member");
    const refused = await expectRefusal(addMember(owner, beyond.id, joiner.email, "member"), 409, "CONFLICT");
    expect(refused.message).toBe(`The account already belongs to ${MEMBERSHIPS} projects, the most one may; it must leave one first`);
    // An invitation is refused at its acceptance the same way, and still works once there is room.
    await owner.caller.invitations.projectCreate({ id: invited.id, invitation: { email: joiner.email, role: "member" } });
    const token = (await invitationPathFor(runtime, joiner.email)).split("/")[1]!;
    const accept = () => joiner.caller.invitations.accept({ token });
    await expectRefusal(accept(), 409, "CONFLICT");
    const list = await projectsOf(joiner);
    expect(list.items).toHaveLength(MEMBERSHIPS);
    expect(ids(list.items)).not.toContain(beyond.id);
    // Leaving one makes room.
    await removeMember(joiner, last.id, joiner.id);
    await accept();
  });
});

describe("how many members one project has", () => {
  const CAP = 10_000;
  const sql = () => runtime.deps.sql;
  const stored = async (projectId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from project_members where project_id = ${projectId}`)[0]!.count;
  /** A project of `size` members beside its owner: one added through the caller, the rest written as copies of that one. */
  const projectOf = async (owner: Account, size: number) => {
    const project = await createProject(owner);
    const seed = await createAccount();
    await addMember(owner, project.id, seed.email, "member");
    const membership = { table: "project_members", scopeColumn: "project_id", scopeId: project.id, column: "user_id", field: "userId" };
    await copyMembers(sql(), { userId: seed.id, copies: size - 1, membership });
    return project;
  };
  const refusal = `The project has ${CAP} members, the most one may have; one must leave first`;

  it(`refuses a member past ${CAP} with 409 CONFLICT, added or by invitation, stores nothing, and lists every one`, async () => {
    const owner = await createAccount();
    const project = await projectOf(owner, CAP - 1);
    await expectMemberCapHeldThroughCaller({
      runtime,
      owner,
      cap: CAP,
      refusal,
      add: (person) => addMember(owner, project.id, person.email, "member"),
      invite: (email) => owner.caller.invitations.projectCreate({ id: project.id, invitation: { email, role: "member" } }),
      leave: (member) => removeMember(member, project.id, member.id),
      stored: () => stored(project.id),
      // The owner first, then every member.
      listed: async () => (await membersOf(owner, project.id)).map((member) => member.userId),
      extra: 1,
    });
  });

  it("lets exactly one of two additions at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount();
    const project = await projectOf(owner, CAP - 1);
    const [first, second] = [await createAccount(), await createAccount()];
    // Both hold the project's row FOR NO KEY UPDATE, which orders them: the first waits at the held row, the second queues behind.
    const hold = await holdRows(runtime.databaseUrl, `select id from projects where id = '${project.id}' for update`);
    const answers = await queuedBehindHold({
      hold,
      sql: sql(),
      first: () =>
        addMember(owner, project.id, first.email, "member").then(
          () => undefined,
          (error: unknown) => error,
        ),
      second: () =>
        addMember(owner, project.id, second.email, "member").then(
          () => undefined,
          (error: unknown) => error,
        ),
    });
    // One was added, the other refused 409 CONFLICT with the cap's message.
    const refusals = answers.filter((answer) => answer !== undefined);
    expect(refusals).toHaveLength(1);
    expect((await expectRefusal(Promise.reject(refusals[0] as Error), 409, "CONFLICT")).message).toBe(refusal);
    expect(await stored(project.id)).toBe(CAP);
  });
});
