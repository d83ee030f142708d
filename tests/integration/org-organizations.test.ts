import { randomBytes } from "node:crypto";
import { organizationsCollection } from "@meridian/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode, type Organization } from "../support/json-api";
import { invitationPathFor } from "../support/invitation-links";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import { copyRow } from "../support/row-copies";
import { holdRows, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "orgs-admin@example.com", password: "orgs admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { call, must, trpcMutation, addOrganizationMember } = jsonApi(() => server);

const tag = () => randomBytes(4).toString("hex");
const validOrganization = (overrides: Record<string, unknown> = {}) => {
  const t = tag();
  return {
    name: `Lowell ${t}`,
    shortName: `lowell-${t}`,
    type: "observatory",
    description: "Flagstaff",
    contactEmail: `contact-${t}@lowell.example`,
    ...overrides,
  };
};
const createOrganization = async (owner: Account, overrides: Record<string, unknown> = {}) =>
  (await must("/organizations", { method: "POST", token: owner.token, json: validOrganization(overrides) }, 201)) as Organization;

describe("POST /organizations", () => {
  it("creates the organization with the caller as owner and as a member with every permission", async () => {
    const owner = await createAccount(server, { name: "Percival" });
    const input = validOrganization();
    const created = await call("/organizations", { method: "POST", token: owner.token, json: input });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toMatch(/^application\/json/);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: input.name,
      shortName: input.shortName,
      type: "observatory",
      description: "Flagstaff",
      contactEmail: input.contactEmail,
      ownerId: owner.id,
      externalStorage: [],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const members = await call(`/organizations/${created.body.id}/members`, { token: owner.token });
    expect(members.status).toBe(200);
    expect(members.body).toEqual({
      items: [
        {
          userId: owner.id,
          email: owner.email,
          name: "Percival",
          role: "owner",
          permissions: {
            can_manage_members: true,
            can_manage_observatories: true,
            can_manage_projects: true,
            can_manage_billing: true,
            can_manage_storage: true,
          },
          joinedAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });

    const fetched = await call(`/organizations/${created.body.id}`, { token: owner.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ ...created.body });
  });

  it("accepts every organization type of the contract and a missing description", async () => {
    const owner = await createAccount(server);
    for (const type of ["university", "college", "high_school", "research_institute", "observatory", "company", "nonprofit", "other"]) {
      const { description: _description, ...input } = validOrganization({ type });
      const created = await call("/organizations", { method: "POST", token: owner.token, json: input });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ type, description: null });
    }
  });

  it("refuses a short name taken in any letter case with 409 SHORT_NAME_TAKEN, and keeps the first", async () => {
    const first = await createAccount(server);
    const second = await createAccount(server);
    const shortName = `Kitt-${tag()}`;
    const original = await createOrganization(first, { shortName });
    for (const variant of [shortName, shortName.toUpperCase(), shortName.toLowerCase()]) {
      const problem = await expectProblem(
        await server.request("/organizations", { method: "POST", token: second.token, json: validOrganization({ shortName: variant }) }),
        409,
        "SHORT_NAME_TAKEN",
      );
      expect(problem.detail).not.toContain(original.id);
    }
    // The same holds when renaming another organization onto it.
    const other = await createOrganization(second);
    await expectProblem(
      await server.request(`/organizations/${other.id}`, { method: "PUT", token: second.token, json: { shortName: shortName.toUpperCase() } }),
      409,
      "SHORT_NAME_TAKEN",
    );
    expect((await call(`/organizations/${original.id}`, { token: first.token })).body.shortName).toBe(shortName);
    expect((await call("/organizations", { token: second.token })).body.items.map((item: { id: string }) => item.id)).toEqual([other.id]);
  });

  it.each([
    ["an unknown field", { extra: true }, ""],
    ["an ownerId (set by the server only)", { ownerId: "usr_someone" }, ""],
    ["a type in the spec's display spelling", { type: "University" }, "type"],
    ["a type not in the enumeration", { type: "castle" }, "type"],
    ["a type of the wrong JSON type", { type: 3 }, "type"],
    ["an invalid contact email", { contactEmail: "not-an-email" }, "contactEmail"],
    ["a contact email without a domain", { contactEmail: "contact@" }, "contactEmail"],
    ["an empty name", { name: "   " }, "name"],
    ["a name with a control character", { name: "Lo\u0007well" }, "name"],
    ["a name with a lone surrogate", { name: "Lowell \ud800" }, "name"],
    ["a description with NUL", { description: "a\u0000b" }, "description"],
    ["a description with a lone surrogate", { description: "\udfffx" }, "description"],
    ["a one-character short name", { shortName: "x" }, "shortName"],
    ["a short name with a space", { shortName: "two words" }, "shortName"],
    ["a 33-character short name", { shortName: "a".repeat(33) }, "shortName"],
    ["external storage at creation", { externalStorage: [] }, ""],
  ])("refuses %s with 400 VALIDATION_FAILED", async (_label, change, path) => {
    const owner = await createAccount(server);
    const problem = await expectProblem(
      await server.request("/organizations", { method: "POST", token: owner.token, json: validOrganization(change) }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.length).toBeGreaterThan(0);
    if (path) expect(problem.errors?.map((error) => error.path)).toContain(path);
    expect((await call("/organizations", { token: owner.token })).body.items).toEqual([]);
  });

  it.each(["name", "shortName", "type", "contactEmail"])("refuses a body without %s with 400 naming it", async (field) => {
    const owner = await createAccount(server);
    const input: Record<string, unknown> = validOrganization();
    delete input[field];
    const problem = await expectProblem(await server.request("/organizations", { method: "POST", token: owner.token, json: input }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toContain(field);
  });

  it("refuses malformed JSON with 400, never 500", async () => {
    const owner = await createAccount(server);
    const response = await server.request("/organizations", {
      method: "POST",
      token: owner.token,
      headers: { "content-type": "application/json" },
      body: '{"name": ',
    });
    await expectProblem(response, 400, "VALIDATION_FAILED");
  });
});

describe("GET /organizations", () => {
  it("lists the caller's organizations only; a server admin sees all with all=true", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const a = await createOrganization(alice);
    const b = await createOrganization(bob);
    const shared = await createOrganization(bob);
    await addOrganizationMember(bob, shared.id, alice, {});

    const mine = await call("/organizations", { token: alice.token });
    expect(mine.status).toBe(200);
    expect(mine.body.nextCursor).toBeNull();
    expect(mine.body.items.map((item: { id: string }) => item.id).sort()).toEqual([a.id, shared.id].sort());
    expect(mine.body.items.find((item: { id: string }) => item.id === shared.id)).toMatchObject({ ownerId: bob.id, name: shared.name });

    const admin = await call("/organizations", { token: adminToken });
    expect(admin.body.items).toEqual([]);
    const all = await call("/organizations?all=true", { token: adminToken });
    expect(all.body.items.map((item: { id: string }) => item.id)).toEqual(expect.arrayContaining([a.id, b.id, shared.id]));
    await expectProblem(await server.request("/organizations?all=true", { token: alice.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request("/organizations?all=yes", { token: adminToken }), 400, "VALIDATION_FAILED");
  });

  it("pages a server admin's list of every organization by short name, across a deleted row, with no duplicates or gaps", async () => {
    const owner = await createAccount(server);
    const t = tag();
    // Made out of order; their short names differ in the last letter only.
    const names = ["e", "a", "g", "c", "f", "b", "d"].map((letter) => `Paged ${t} ${letter}`);
    const made = [];
    for (const name of names) made.push(await createOrganization(owner, { name, shortName: `paged-${t}-${name.slice(-1)}` }));
    const inOrder = [...made].sort((left, right) => left.shortName.localeCompare(right.shortName));
    const ids = (page: { items: Array<{ id: string }> }) => page.items.map((item) => item.id);
    const path = (query: Record<string, string>) => `/organizations?${new URLSearchParams({ all: "true", ...query }).toString()}`;

    const first = await must(path({ q: `paged-${t}`, limit: "3" }), { token: adminToken }, 200);
    expect(ids(first)).toEqual(inOrder.slice(0, 3).map((organization) => organization.id));
    expect(first.items[0]).toEqual(inOrder[0]);
    expect(first.nextCursor).toEqual(expect.any(String));
    // The organization the cursor was made from goes before the next page is read: the walk goes on after it.
    await deleteRows(server.databaseUrl, "organizations", [inOrder[2]!.id]);
    const second = await must(path({ q: `paged-${t}`, limit: "3", cursor: first.nextCursor }), { token: adminToken }, 200);
    expect(ids(second)).toEqual(inOrder.slice(3, 6).map((organization) => organization.id));
    const viaTrpc = await trpcData<{ items: Array<{ id: string }>; nextCursor: string | null }>(
      await server.request(trpcQuery("organizations.list", { all: true, q: `paged-${t}`, limit: 3, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(viaTrpc).toEqual(second);
    const last = await must(path({ q: `paged-${t}`, limit: "3", cursor: second.nextCursor }), { token: adminToken }, 200);
    expect(last).toEqual({ items: [inOrder[6]], nextCursor: null });

    // Every organization on the server, two at a time: the same list, in the same order, as one page of 200.
    const whole = await must(path({ limit: "200" }), { token: adminToken }, 200);
    expect(whole.nextCursor).toBeNull();
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextCursor: string | null } = await must(
        path(cursor ? { limit: "2", cursor } : { limit: "2" }),
        { token: adminToken },
        200,
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      walked.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual(ids(whole));
    expect(walked.length).toBeGreaterThan(6);
    // The default page is the contract's 50.
    expect((await must("/organizations?all=true", { token: adminToken }, 200)).items).toEqual(whole.items.slice(0, 50));
    // `q` is a part of the name or short name, its wildcards taken as letters.
    expect(ids(await must(path({ q: `${t.toUpperCase()} D` }), { token: adminToken }, 200))).toEqual([inOrder[3]!.id]);
    expect((await must(path({ q: "%_" }), { token: adminToken }, 200)).items).toEqual([]);
  });

  it("refuses a cursor or limit the admin list never gave, a non-admin's all=true and a caller without credentials", async () => {
    const alice = await createAccount(server);
    for (const cursor of [...foreignCursors, Buffer.from(JSON.stringify(["users", alice.id])).toString("base64url")]) {
      await expectCursorRefused(await server.request(`/organizations?all=true&cursor=${encodeURIComponent(cursor)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("organizations.list", { all: true, cursor }), { token: adminToken }));
    }
    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=201", "limit"],
      ["limit=ten", "limit"],
      ["limit=1.5", "limit"],
      [`cursor=${"x".repeat(201)}`, "cursor"],
      [`q=${"x".repeat(201)}`, "q"],
    ]) {
      for (const all of ["all=true&", ""]) {
        const problem = await expectProblem(await server.request(`/organizations?${all}${query}`, { token: adminToken }), 400, "VALIDATION_FAILED");
        expect(
          problem.errors?.map((error) => error.path),
          `${all}${query}`,
        ).toEqual([field]);
      }
    }
    await expectProblem(await server.request("/organizations?all=true&limit=2", { token: alice.token }), 403, "FORBIDDEN");
    expect(await trpcErrorCode(await server.request(trpcQuery("organizations.list", { all: true }), { token: alice.token }))).toBe("FORBIDDEN");
    await expectProblem(await server.request("/organizations?all=true"), 401, "UNAUTHENTICATED");
    await expectProblem(await server.request("/organizations?all=true&limit=2"), 401, "UNAUTHENTICATED");
  });

  it("returns the caller's own list whole whatever limit and cursor say, and filters it by q", async () => {
    const member = await createAccount(server);
    const t = tag();
    const made = [];
    for (const letter of ["b", "a", "c"]) made.push(await createOrganization(member, { name: `Own ${t} ${letter}`, shortName: `own-${t}-${letter}` }));
    const inOrder = [...made].sort((left, right) => left.shortName.localeCompare(right.shortName));
    const whole = { items: inOrder, nextCursor: null };
    expect(await must("/organizations", { token: member.token }, 200)).toEqual(whole);
    const adminPage = await must("/organizations?all=true&limit=1", { token: adminToken }, 200);
    for (const query of ["limit=1", `limit=1&cursor=${encodeURIComponent(adminPage.nextCursor)}`, "cursor=garbage", "all=false&limit=1"])
      expect(await must(`/organizations?${query}`, { token: member.token }, 200), query).toEqual(whole);
    expect(await trpcData(await server.request(trpcQuery("organizations.list", { limit: 1 }), { token: member.token }))).toEqual(whole);
    expect(await must(`/organizations?q=${encodeURIComponent(`OWN ${t.toUpperCase()} C`)}`, { token: member.token }, 200)).toEqual({
      items: [inOrder[2]],
      nextCursor: null,
    });
  });

  it("lets a server admin read any organization and its members without being a member", async () => {
    const owner = await createAccount(server);
    const created = await createOrganization(owner);
    expect((await call(`/organizations/${created.id}`, { token: adminToken })).body).toMatchObject({ id: created.id, ownerId: owner.id });
    expect((await call(`/organizations/${created.id}/members`, { token: adminToken })).body.items.map((item: { userId: string }) => item.userId)).toEqual([
      owner.id,
    ]);
  });
});

describe("PUT /organizations/{id}", () => {
  it("changes only the fields sent when the owner updates", async () => {
    const owner = await createAccount(server);
    const created = await createOrganization(owner);
    const renamed = await call(`/organizations/${created.id}`, { method: "PUT", token: owner.token, json: { name: "Lowell Observatory" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ ...created, name: "Lowell Observatory", updatedAt: expect.any(String) });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));

    const retyped = await call(`/organizations/${created.id}`, {
      method: "PUT",
      token: owner.token,
      json: { type: "nonprofit", description: null, contactEmail: "NEW@lowell.example" },
    });
    expect(retyped.status).toBe(200);
    expect(retyped.body).toMatchObject({
      name: "Lowell Observatory",
      shortName: created.shortName,
      type: "nonprofit",
      description: null,
      contactEmail: "NEW@lowell.example",
      ownerId: owner.id,
    });
    expect((await call(`/organizations/${created.id}`, { token: owner.token })).body).toMatchObject(retyped.body);
  });

  it.each([
    ["an unknown field", { color: "red" }],
    ["a changed owner", { ownerId: "usr_x" }],
    ["a bad type", { type: "School" }],
    ["a bad email", { contactEmail: "nope" }],
    ["a null name", { name: null }],
    ["an external storage of an unknown kind", { externalStorage: [{ kind: "ftp", label: "Old" }] }],
    ["an external storage without a label", { externalStorage: [{ kind: "s3" }] }],
  ])("refuses %s with 400 and changes nothing", async (_label, change) => {
    const owner = await createAccount(server);
    const created = await createOrganization(owner);
    await expectProblem(await server.request(`/organizations/${created.id}`, { method: "PUT", token: owner.token, json: change }), 400, "VALIDATION_FAILED");
    expect((await call(`/organizations/${created.id}`, { token: owner.token })).body).toMatchObject(created);
  });

  it("lets can_manage_storage change externalStorage and nothing else (403 for any other field)", async () => {
    const owner = await createAccount(server);
    const keeper = await createAccount(server);
    const created = await createOrganization(owner);
    await addOrganizationMember(owner, created.id, keeper, { can_manage_storage: true });
    const storage = [{ kind: "dropbox", label: "Shared", settings: { folder: "/Shared" }, secrets: { refreshToken: "r", appKey: "k", appSecret: "s" } }];

    await expectProblem(
      await server.request(`/organizations/${created.id}`, { method: "PUT", token: keeper.token, json: { name: "Taken over" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/organizations/${created.id}`, { method: "PUT", token: keeper.token, json: { externalStorage: storage, description: "sneaky" } }),
      403,
      "FORBIDDEN",
    );
    expect((await call(`/organizations/${created.id}`, { token: owner.token })).body).toMatchObject(created);

    const updated = await call(`/organizations/${created.id}`, { method: "PUT", token: keeper.token, json: { externalStorage: storage } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: created.name,
      description: created.description,
      externalStorage: [
        {
          id: expect.any(String),
          kind: "dropbox",
          label: "Shared",
          settings: { folder: "/Shared" },
          configuredSecrets: ["appKey", "appSecret", "refreshToken"],
        },
      ],
    });
  });

  it("gives a member with every permission but ownership no say over the settings", async () => {
    const owner = await createAccount(server);
    const manager = await createAccount(server);
    const created = await createOrganization(owner);
    await addOrganizationMember(owner, created.id, manager, {
      can_manage_members: true,
      can_manage_observatories: true,
      can_manage_projects: true,
      can_manage_billing: true,
      can_manage_storage: true,
    });
    await expectProblem(
      await server.request(`/organizations/${created.id}`, { method: "PUT", token: manager.token, json: { contactEmail: "me@example.com" } }),
      403,
      "FORBIDDEN",
    );
  });
});

describe("tRPC organizations procedures", () => {
  it("creates and reads through the same domain functions, with the same refusals", async () => {
    const owner = await createAccount(server);
    const stranger = await createAccount(server);
    const input = validOrganization();
    const organization = await trpcMutation<{ id: string; ownerId: string; shortName: string }>("organizations.create", { token: owner.token, json: input });
    expect(organization).toMatchObject({ ownerId: owner.id, shortName: input.shortName });

    const viaRest = await call(`/organizations/${organization.id}`, { token: owner.token });
    expect(viaRest.body).toMatchObject(organization);

    const query = (token: string) => server.request(`/trpc/organizations.get?input=${encodeURIComponent(JSON.stringify({ id: organization.id }))}`, { token });
    const read = await query(owner.token);
    expect(read.status).toBe(200);
    expect(await trpcData(read)).toMatchObject({ id: organization.id, myRole: "owner" });

    const hidden = await query(stranger.token);
    expect(hidden.status).toBe(404);
    expect(await trpcErrorCode(hidden)).toBe("NOT_FOUND");

    const taken = await server.request("/trpc/organizations.create", {
      method: "POST",
      token: stranger.token,
      json: { ...validOrganization(), shortName: input.shortName.toUpperCase() },
    });
    expect(taken.status).toBe(409);
    expect(await trpcErrorCode(taken)).toBe("SHORT_NAME_TAKEN");

    const anonymous = await server.request("/trpc/organizations.list");
    expect(anonymous.status).toBe(401);
    expect(await trpcErrorCode(anonymous)).toBe("UNAUTHENTICATED");
  });
});

describe("the OpenAPI document", () => {
  const routes = [
    ["get", "/organizations"],
    ["post", "/organizations"],
    ["get", "/organizations/{id}"],
    ["put", "/organizations/{id}"],
    ["get", "/organizations/{id}/members"],
    ["post", "/organizations/{id}/members"],
    ["put", "/organizations/{id}/members/{userId}"],
    ["delete", "/organizations/{id}/members/{userId}"],
    ["post", "/organizations/{id}/transfer-ownership"],
    ["get", "/organizations/{id}/audit"],
    ["post", "/observatories"],
    ["get", "/observatories"],
    ["get", "/observatories/{id}"],
    ["post", "/observatories/{id}/transfer-ownership"],
    ["get", "/observatories/{id}/members"],
    ["post", "/observatories/{id}/members"],
    ["put", "/observatories/{id}/members/{userId}"],
    ["delete", "/observatories/{id}/members/{userId}"],
    ["post", "/observatories/{id}/members/organization"],
    ["put", "/observatories/{id}/members/organization/{orgId}"],
    ["delete", "/observatories/{id}/members/organization/{orgId}"],
    ["get", "/observatories/{id}/permissions/me"],
    ["get", "/observatories/{id}/history"],
    ["post", "/projects"],
    ["get", "/projects"],
    ["get", "/projects/{id}"],
    ["put", "/projects/{id}"],
    ["get", "/projects/{id}/members"],
    ["post", "/projects/{id}/members"],
    ["delete", "/projects/{id}/members/{userId}"],
    ["get", "/api/v1/admin/audit"],
  ] as const;

  it("documents every route of organizations, observatories, projects and the audit log, with its refusals as problem+json", async () => {
    const doc = (await (await server.request("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }>; security?: unknown[] }>>;
    };
    for (const [method, path] of routes) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      for (const status of ["401", "403", "404"])
        expect(Object.keys(operation!.responses[status]?.content ?? {}), `${method} ${path} ${status}`).toContain("application/problem+json");
      expect(operation!.security?.length, `${method} ${path} security`).toBeGreaterThan(0);
    }
  });
});

describe("how many organizations one user owns", () => {
  const OWNED = 100;
  const db = () => server.server.runtime.deps.db;
  const ownedBy = async (userId: string) =>
    (await server.server.runtime.deps.sql<Array<{ count: number }>>`select count(*)::int as count from organizations where owner_id = ${userId}`)[0]!.count;
  /** Organizations written as rows, not through the API: the ones a user's next creation or transfer is tried against. */
  const seedOrganizations = async (ownerId: string, count: number) => {
    for (let start = 0; start < count; start += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, count - start) }, () => {
          const t = tag();
          return organizationsCollection.insert(db(), {
            name: `Seeded ${t}`,
            shortName: `seeded-${t}`,
            type: "observatory",
            description: null,
            contactEmail: `seeded-${t}@example.com`,
            ownerId,
            externalStorage: [],
          });
        }),
      );
  };
  const create = (owner: Account, fields: Record<string, unknown> = {}) =>
    server.request("/organizations", { method: "POST", token: owner.token, json: validOrganization(fields) });
  const refusal = `You own ${OWNED} organizations, the most one account may own; delete or transfer one first`;

  it(`refuses a user's organization past ${OWNED} owned with 409 CONFLICT, stores nothing of it, and takes one again once one is deleted`, async () => {
    const owner = await createAccount(server);
    await seedOrganizations(owner.id, OWNED - 1);
    const last = (await (await create(owner)).json()) as Organization;
    expect(last.ownerId).toBe(owner.id);
    const beyond = validOrganization();
    const refused = await expectProblem(await server.request("/organizations", { method: "POST", token: owner.token, json: beyond }), 409, "CONFLICT");
    expect(refused.detail).toBe(refusal);
    expect(await ownedBy(owner.id)).toBe(OWNED);
    expect((await server.server.runtime.deps.sql`select id from organizations where short_name_lower = ${beyond.shortName}`).length).toBe(0);
    // tRPC refuses it the same way.
    const trpc = await server.request("/trpc/organizations.create", { method: "POST", token: owner.token, json: validOrganization() });
    expect(trpc.status).toBe(409);
    expect(await trpcErrorCode(trpc)).toBe("CONFLICT");
    expect((await server.request(`/organizations/${last.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await create(owner)).status).toBe(201);
  });

  it("lets exactly one of two creations at the last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount(server);
    await seedOrganizations(owner.id, OWNED - 1);
    // Both creations count under the owner's row: the first waits at it, the second queues behind.
    const hold = await holdRows(server.databaseUrl, `select id from users where id = '${owner.id}' for update`);
    const answers = await queuedBehindHold({ hold, sql: server.server.runtime.deps.sql, first: () => create(owner), second: () => create(owner) });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await ownedBy(owner.id)).toBe(OWNED);
  });

  it("refuses a transfer to a member who owns as many already: 409 CONFLICT, and the owner stays", async () => {
    const owner = await createAccount(server);
    const heir = await createAccount(server);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, heir, {});
    await seedOrganizations(heir.id, OWNED);
    const refused = await expectProblem(
      await server.request(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: heir.id } }),
      409,
      "CONFLICT",
    );
    expect(refused.detail).toBe(`The new owner already owns ${OWNED} organizations, the most one account may own; they must delete or transfer one first`);
    expect((await call(`/organizations/${organization.id}`, { token: owner.token })).body.ownerId).toBe(owner.id);
    expect(await ownedBy(heir.id)).toBe(OWNED);
  });
});

describe("how many organizations one user belongs to", () => {
  const MEMBERSHIPS = 1000;
  const sql = () => server.server.runtime.deps.sql;
  const belongsTo = async (userId: string) =>
    (await sql()<Array<{ count: number }>>`select count(*)::int as count from organization_members where user_id = ${userId}`)[0]!.count;
  /** A user who belongs to `count` organizations: one joined through the API, the rest copies of it and of their membership. */
  const memberOfMany = async (count: number) => {
    const [joiner, owner] = [await createAccount(server), await createAccount(server)];
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, joiner, {});
    const [row] = await sql()<Array<{ id: string }>>`select id from organization_members where organization_id = ${organization.id} and user_id = ${joiner.id}`;
    await copyRow(sql(), { table: "organizations", id: organization.id, copies: count - 1, vary: { column: "short_name_lower", field: "shortName" } });
    await copyRow(sql(), { table: "organization_members", id: row!.id, copies: count - 1, vary: { column: "organization_id", field: "organizationId" } });
    return joiner;
  };
  const add = (owner: Account, organizationId: string, member: Account) =>
    server.request(`/organizations/${organizationId}/members`, { method: "POST", token: owner.token, json: { email: member.email } });
  const refusal = `The account already belongs to ${MEMBERSHIPS} organizations, the most one may; it must leave one first`;

  it(`refuses a membership past ${MEMBERSHIPS} with 409 CONFLICT (added, by invitation, or by creating one) and lists every one`, async () => {
    const joiner = await memberOfMany(MEMBERSHIPS - 1);
    const owner = await createAccount(server);
    const [last, beyond, invitedTo] = [await createOrganization(owner), await createOrganization(owner), await createOrganization(owner)];
    expect((await add(owner, last.id, joiner)).status).toBe(201);
    expect((await expectProblem(await add(owner, beyond.id, joiner), 409, "CONFLICT")).detail).toBe(refusal);
    // Creating one makes its creator a member: refused too, though they own none.
    const created = validOrganization();
    const refused = await server.request("/organizations", { method: "POST", token: joiner.token, json: created });
    expect((await expectProblem(refused, 409, "CONFLICT")).detail).toBe(refusal);
    expect((await sql()`select id from organizations where short_name_lower = ${created.shortName}`).length).toBe(0);
    await must(`/organizations/${invitedTo.id}/invitations`, { method: "POST", token: owner.token, json: { email: joiner.email } }, 201);
    const token = (await invitationPathFor(server, joiner.email)).split("/")[1]!;
    const accept = () => server.request("/api/v1/invitations/accept", { method: "POST", token: joiner.token, json: { token } });
    expect((await expectProblem(await accept(), 409, "CONFLICT")).detail).toBe(refusal);
    expect(await belongsTo(joiner.id)).toBe(MEMBERSHIPS);

    const list = await call("/organizations", { token: joiner.token });
    expect(list.body.items).toHaveLength(MEMBERSHIPS);
    expect(list.body.nextCursor).toBeNull();
    const listed = list.body.items.map((item: Organization) => item.id);
    expect(listed).toContain(last.id);
    expect(listed).not.toContain(beyond.id);

    // Leaving one makes room.
    expect((await server.request(`/organizations/${last.id}/members/${joiner.id}`, { method: "DELETE", token: joiner.token })).status).toBe(204);
    expect((await accept()).status).toBe(200);
  });

  it("lets exactly one of two additions of one user at the last place win, the other 409 CONFLICT", async () => {
    const joiner = await memberOfMany(MEMBERSHIPS - 1);
    const owner = await createAccount(server);
    const [first, second] = [await createOrganization(owner), await createOrganization(owner)];
    // Into two organizations, so only the user's row orders them: the first waits at it, the second queues behind.
    const hold = await holdRows(server.databaseUrl, `select id from users where id = '${joiner.id}' for update`);
    const answers = await queuedBehindHold({ hold, sql: sql(), first: () => add(owner, first.id, joiner), second: () => add(owner, second.id, joiner) });
    await expectOneCreatedOneRefused(answers, refusal);
    expect(await belongsTo(joiner.id)).toBe(MEMBERSHIPS);
  });
});
