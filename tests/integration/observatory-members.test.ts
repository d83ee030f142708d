import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import { expectMemberCapHeld } from "../support/member-caps";
import { copyMembers, copyRow } from "../support/row-copies";
import { holdTable, lockWaiters } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "observatories-admin@example.com", password: "observatories admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { call, must, trpcMutation, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(
  () => server,
);

const ALL = { can_view: true, can_observe: true, can_operate: true, can_admin: true };
const VIEW = { can_view: true, can_observe: false, can_operate: false, can_admin: false };

describe("POST /observatories", () => {
  it("creates an observatory the caller owns, with the contract's shape", async () => {
    const owner = await createAccount(server);
    const plain = await call("/observatories", { method: "POST", token: owner.token, json: { name: "Kitt Peak" } });
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({
      id: expect.any(String),
      name: "Kitt Peak",
      owner: { kind: "user", id: owner.id, name: expect.any(String) },
      dispatchEnabled: true,
      connection: { online: false },
      createdAt: expect.stringMatching(/Z$/),
      myPermissions: ALL,
      // Time and duration: no location, so UTC; the estimates' defaults.
      timeZone: "UTC",
      locationTimeZone: "UTC",
      settings: { slewSeconds: 120, readoutSeconds: 10 },
      // No plugin has reported its filters yet: none is refused.
      filters: null,
    });
    const located = await call("/observatories", {
      method: "POST",
      token: owner.token,
      json: { name: "Mauna Kea", location: { latitude: 19.82, longitude: -155.47, elevation: 4205 }, dispatchEnabled: false },
    });
    expect(located.body).toMatchObject({ location: { latitude: 19.82, longitude: -155.47, elevation: 4205 }, dispatchEnabled: false });
    expect((await call(`/observatories/${located.body.id}`, { token: owner.token })).body).toEqual(located.body);
  });

  it("makes the organization owner and a member with all four permissions that cannot be removed", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Las Cumbres" });
    const observatory = await createObservatory(owner, { name: "Siding Spring", organizationId: organization.id });
    expect(observatory.owner).toEqual({ kind: "organization", id: organization.id, name: "Las Cumbres" });

    const members = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(members).toEqual({ users: [], organizations: [{ organizationId: organization.id, name: "Las Cumbres", permissions: ALL, owning: true }] });
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: owner.token }),
      409,
      "OWNING_ORGANIZATION_CANNOT_BE_REMOVED",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: adminToken }),
      409,
      "OWNING_ORGANIZATION_CANNOT_BE_REMOVED",
    );
    expect((await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200)).organizations).toHaveLength(1);
    // Nor can its permissions drop below all four while it owns the observatory, not even one that can_admin implies.
    for (const permissions of [{ can_admin: false }, { can_observe: false }]) {
      await expectProblem(
        await server.request(`/observatories/${observatory.id}/members/organization/${organization.id}`, {
          method: "PUT",
          token: owner.token,
          json: { permissions },
        }),
        409,
        "OWNER_PERMISSIONS_FIXED",
      );
    }
    expect((await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200)).organizations[0].permissions).toEqual(ALL);
    const history = await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200);
    expect(history.items).toEqual([
      {
        id: expect.any(String),
        type: "organization_added",
        at: expect.any(String),
        actorId: owner.id,
        actorName: expect.any(String),
        data: expect.objectContaining({ organizationId: organization.id, organizationName: "Las Cumbres", permissionsAfter: ALL }),
      },
      expect.objectContaining({ type: "created", actorId: owner.id }),
    ]);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "  " }],
    ["a name with a lone surrogate", { name: "Obs \ud800" }],
    ["an unknown field", { name: "X", telescope: "big" }],
    ["an owner field", { name: "X", owner: { kind: "user", id: "usr_x" } }],
    ["a latitude out of range", { name: "X", location: { latitude: 91, longitude: 0, elevation: 0 } }],
    ["a location without elevation", { name: "X", location: { latitude: 1, longitude: 0 } }],
    ["an organization id with NUL", { name: "X", organizationId: "org_\u0000" }],
  ])("refuses %s with 400", async (_label, json) => {
    const owner = await createAccount(server);
    await expectProblem(await server.request("/observatories", { method: "POST", token: owner.token, json }), 400, "VALIDATION_FAILED");
    expect((await must("/observatories", { token: owner.token }, 200)).items).toEqual([]);
  });
});

describe("GET /observatories and /observatories/{id}", () => {
  it("lists only the observatories the caller can view, each with the caller's permissions and its owner's name", async () => {
    const owner = await createAccount(server, { name: "Olga Owner" });
    const viewer = await createAccount(server);
    const stranger = await createAccount(server);
    const mine = await createObservatory(owner);
    const shared = await createObservatory(owner);
    const other = await createObservatory(stranger);
    await addObservatoryMember(owner, shared.id, viewer);

    const ownerList = await must("/observatories", { token: owner.token }, 200);
    expect(ownerList.nextCursor).toBeNull();
    expect(ownerList.items.map((item: { id: string }) => item.id).sort()).toEqual([mine.id, shared.id].sort());
    expect(ownerList.items.every((item: { myPermissions: unknown }) => JSON.stringify(item.myPermissions) === JSON.stringify(ALL))).toBe(true);

    const viewerList = await must("/observatories", { token: viewer.token }, 200);
    expect(viewerList.items).toEqual([
      expect.objectContaining({ id: shared.id, owner: { kind: "user", id: owner.id, name: "Olga Owner" }, myPermissions: VIEW }),
    ]);

    await expectProblem(await server.request(`/observatories/${mine.id}`, { token: viewer.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/observatories/${other.id}`, { token: owner.token }), 404, "NOT_FOUND");
    expect((await must(`/observatories/${shared.id}`, { token: viewer.token }, 200)).myPermissions).toEqual(VIEW);

    // A server admin sees every observatory with every permission.
    const adminList = await must("/observatories?limit=200", { token: adminToken }, 200);
    expect(adminList.items.map((item: { id: string }) => item.id)).toEqual(expect.arrayContaining([mine.id, shared.id, other.id]));
    expect(adminList.items.find((item: { id: string }) => item.id === other.id).myPermissions).toEqual(ALL);
    // An administrator who is no member reads whose observatory it is, by name.
    expect(adminList.items.find((item: { id: string }) => item.id === mine.id).owner).toEqual({ kind: "user", id: owner.id, name: "Olga Owner" });
    expect((await must(`/observatories/${shared.id}`, { token: adminToken }, 200)).owner.name).toBe("Olga Owner");
  });

  it("pages with limit and cursor without repeating or skipping", async () => {
    const owner = await createAccount(server);
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push((await createObservatory(owner)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextCursor: string | null } = await must(
        `/observatories?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { token: owner.token },
        200,
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(ids.sort());
  });

  it("goes on past an observatory removed since its page was read, and refuses a cursor it never gave", async () => {
    const owner = await createAccount(server);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await createObservatory(owner)).id);
    ids.sort();
    const first = await must("/observatories?limit=2", { token: owner.token }, 200);
    expect(first.items.map((item: { id: string }) => item.id)).toEqual(ids.slice(0, 2));
    await must(`/observatories/${ids[1]}`, { method: "DELETE", token: owner.token }, 204);
    const second = await must(`/observatories?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, { token: owner.token }, 200);
    expect(second.items.map((item: { id: string }) => item.id)).toEqual(ids.slice(2, 4));
    const viaTrpc = await trpcData<{ items: Array<{ id: string }> }>(
      await server.request(trpcQuery("observatories.list", { limit: 2, cursor: first.nextCursor }), { token: owner.token }),
    );
    expect(viaTrpc.items.map((item) => item.id)).toEqual(ids.slice(2, 4));

    // Each is a 400 for a member's list and an administrator's (two ways of reading it).
    for (const cursor of [...foreignCursors, ids[2]!]) {
      for (const token of [owner.token, adminToken]) {
        await expectCursorRefused(await server.request(`/observatories?cursor=${encodeURIComponent(cursor)}`, { token }));
        await expectTrpcCursorRefused(await server.request(trpcQuery("observatories.list", { cursor }), { token }));
      }
    }
  });
});

describe("observatory members", () => {
  it("lists users and organizations in exactly the contract's shape", async () => {
    const owner = await createAccount(server, { name: "Olga Owner" });
    const viewer = await createAccount(server, { name: "Vera Viewer" });
    const orgOwner = await createAccount(server);
    const organization = await createOrganization(orgOwner, { name: "Member Org" });
    const observatory = await createObservatory(owner);
    const added = await call(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: viewer.email.toUpperCase() } });
    expect(added.status).toBe(201);
    // New user members get can_view only.
    expect(added.body).toEqual({ userId: viewer.id, email: viewer.email, name: "Vera Viewer", permissions: VIEW, source: "direct" });
    const addedOrganization = await call(`/observatories/${observatory.id}/members/organization`, {
      method: "POST",
      token: owner.token,
      json: { organizationId: organization.id },
    });
    expect(addedOrganization.status).toBe(201);
    // New organization members get can_view only, too.
    expect(addedOrganization.body).toEqual({ organizationId: organization.id, name: "Member Org", permissions: VIEW, owning: false });

    const members = await must(`/observatories/${observatory.id}/members`, { token: viewer.token }, 200);
    expect(members).toEqual({
      users: [
        { userId: owner.id, email: owner.email, name: "Olga Owner", permissions: ALL, source: "owner" },
        { userId: viewer.id, email: viewer.email, name: "Vera Viewer", permissions: VIEW, source: "direct" },
      ],
      organizations: [{ organizationId: organization.id, name: "Member Org", permissions: VIEW, owning: false }],
    });
  });

  it("refuses unknown users, second memberships and bad bodies", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const observatory = await createObservatory(owner);
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members`, {
        method: "POST",
        token: owner.token,
        json: { email: `nobody-${randomBytes(3).toString("hex")}@example.com` },
      }),
      404,
      "USER_NOT_FOUND",
    );
    await addObservatoryMember(owner, observatory.id, member);
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: member.email } }),
      409,
      "ALREADY_MEMBER",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: owner.email } }),
      409,
      "ALREADY_MEMBER",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/organization`, {
        method: "POST",
        token: owner.token,
        json: { organizationId: "org_nope" },
      }),
      404,
      "NOT_FOUND",
    );
    for (const json of [{ email: member.email, permissions: { can_fly: true } }, { email: "x" }, { email: member.email, role: "admin" }]) {
      await expectProblem(
        await server.request(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json }),
        400,
        "VALIDATION_FAILED",
      );
    }
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${member.id}`, {
        method: "PUT",
        token: owner.token,
        json: { permissions: { can_view: "yes" } },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${owner.id}`, {
        method: "PUT",
        token: owner.token,
        json: { permissions: { can_view: true } },
      }),
      404,
      "NOT_FOUND",
    );
  });

  it("changes a user's permissions, lets a member leave and an admin remove", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const leaver = await createAccount(server);
    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, member);
    await addObservatoryMember(owner, observatory.id, leaver, { can_observe: true });

    const promoted = await must(
      `/observatories/${observatory.id}/members/${member.id}`,
      { method: "PUT", token: owner.token, json: { permissions: { can_admin: true } } },
      200,
    );
    expect(promoted).toMatchObject({ userId: member.id, permissions: { can_view: true, can_admin: true } });
    // can_admin implies everything below it.
    expect(await must(`/observatories/${observatory.id}/permissions/me`, { token: member.token }, 200)).toMatchObject(ALL);
    const me = await must(`/observatories/${observatory.id}/permissions/me`, { token: leaver.token }, 200);
    expect(me).toEqual({
      can_view: true,
      can_observe: true,
      can_operate: false,
      can_admin: false,
      sources: [{ kind: "direct", permissions: { can_view: true, can_observe: true, can_operate: false, can_admin: false } }],
    });

    await must(`/observatories/${observatory.id}/members/${leaver.id}`, { method: "DELETE", token: leaver.token }, 204);
    await expectProblem(await server.request(`/observatories/${observatory.id}`, { token: leaver.token }), 404, "NOT_FOUND");
    await must(
      `/observatories/${observatory.id}/members/${member.id}`,
      { method: "PUT", token: owner.token, json: { permissions: { can_admin: false, can_operate: false, can_observe: false } } },
      200,
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members`, { method: "POST", token: member.token, json: { email: leaver.email } }),
      403,
      "FORBIDDEN",
    );
    await must(`/observatories/${observatory.id}/members/${member.id}`, { method: "DELETE", token: owner.token }, 204);
    // The owning user is listed as a member but cannot be removed, not even by themself.
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${owner.id}`, { method: "DELETE", token: owner.token }),
      409,
      "OWNER_CANNOT_BE_REMOVED",
    );
    expect((await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200)).users.map((user: { userId: string }) => user.userId)).toEqual([
      owner.id,
    ]);
  });

  it("leaves no membership of an organization deleted while an observatory adds it", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Vanishing Org" });
    const observatory = await createObservatory(owner, { name: "Host" });

    // The addition holds the organization against its deletion, writes the membership, then waits at its history entry.
    const hold = await holdTable(server.databaseUrl, "observatory_history");
    let added: { status: number };
    let deleted: { status: number };
    try {
      const addition = call(`/observatories/${observatory.id}/members/organization`, {
        method: "POST",
        token: owner.token,
        json: { organizationId: organization.id, permissions: { can_view: true } },
      });
      await until("the addition to wait at the observatory's history", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
      let settled = false;
      const deletion = call(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token }).finally(() => (settled = true));
      await until("the deletion to wait for the addition", async () => settled || (await lockWaiters(server.server.runtime.deps.sql)) >= 2, {
        intervalMs: 5,
      });
      await hold.release();
      [added, deleted] = await Promise.all([addition, deletion]);
    } finally {
      await hold.release();
    }

    // The addition first; the deletion then ends the membership it made (recorded in the observatory's history).
    expect([added.status, deleted.status]).toEqual([201, 204]);
    const left = await server.server.runtime.deps.sql`
      select id from observatory_members where member_kind = 'organization' and member_id = ${organization.id}`;
    expect(left).toHaveLength(0);
    const history = await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200);
    expect(history.items[0]).toMatchObject({ type: "organization_removed", data: { organizationId: organization.id, reason: "organization_deleted" } });
  });
});

describe("GET /observatories/{id}/permissions/me", () => {
  it("reports the effective permissions and every source", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const both = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, both);
    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, both, { can_view: true });
    await addObservatoryOrganization(owner, observatory.id, organization.id, ALL);

    expect(await must(`/observatories/${observatory.id}/permissions/me`, { token: both.token }, 200)).toEqual({
      can_view: true,
      can_observe: true,
      can_operate: false,
      can_admin: false,
      sources: expect.arrayContaining([
        { kind: "direct", permissions: VIEW },
        {
          kind: "organization",
          organizationId: organization.id,
          role: "member",
          permissions: { can_view: true, can_observe: true, can_operate: false, can_admin: false },
        },
      ]),
    });
    expect((await must(`/observatories/${observatory.id}/permissions/me`, { token: both.token }, 200)).sources).toHaveLength(2);
    expect(await must(`/observatories/${observatory.id}/permissions/me`, { token: owner.token }, 200)).toEqual({
      ...ALL,
      sources: [{ kind: "owner", permissions: ALL }],
    });
    expect(await must(`/observatories/${observatory.id}/permissions/me`, { token: adminToken }, 200)).toEqual({
      ...ALL,
      sources: [{ kind: "serverAdmin", permissions: ALL }],
    });
  });
});

describe("GET /observatories/{id}/history", () => {
  it("records organization_added, organization_permissions_updated and organization_removed with actor, name and permissions, newest first", async () => {
    const owner = await createAccount(server);
    const admin = await createAccount(server);
    const orgOwner = await createAccount(server);
    const organization = await createOrganization(orgOwner, { name: "Historic Org" });
    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, admin, { can_admin: true });

    const granted = { can_view: true, can_observe: true, can_operate: false, can_admin: false };
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true, can_observe: true });
    await must(
      `/observatories/${observatory.id}/members/organization/${organization.id}`,
      { method: "PUT", token: admin.token, json: { permissions: { can_operate: true } } },
      200,
    );
    // The name at the time of each entry is kept when the organization is renamed later.
    await must(`/organizations/${organization.id}`, { method: "PUT", token: orgOwner.token, json: { name: "Renamed Org" } }, 200);
    await must(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: owner.token }, 204);

    const history = await must(`/observatories/${observatory.id}/history`, { token: admin.token }, 200);
    expect(history.nextCursor).toBeNull();
    expect(history.items).toEqual([
      {
        id: expect.any(String),
        type: "organization_removed",
        at: expect.any(String),
        actorId: owner.id,
        actorName: expect.any(String),
        data: {
          organizationId: organization.id,
          organizationName: "Renamed Org",
          permissionsBefore: { ...granted, can_operate: true },
          permissionsAfter: null,
        },
      },
      {
        id: expect.any(String),
        type: "organization_permissions_updated",
        at: expect.any(String),
        actorId: admin.id,
        actorName: expect.any(String),
        data: {
          organizationId: organization.id,
          organizationName: "Historic Org",
          permissionsBefore: granted,
          permissionsAfter: { ...granted, can_operate: true },
        },
      },
      {
        id: expect.any(String),
        type: "organization_added",
        at: expect.any(String),
        actorId: owner.id,
        actorName: expect.any(String),
        data: { organizationId: organization.id, organizationName: "Historic Org", permissionsBefore: null, permissionsAfter: granted },
      },
      expect.objectContaining({ type: "member_added", actorId: owner.id }),
      expect.objectContaining({ type: "created", actorId: owner.id }),
    ]);
    const times = history.items.map((item: { at: string }) => Date.parse(item.at));
    expect(times[0]).toBeGreaterThanOrEqual(times[1]);
    expect(times[1]).toBeGreaterThanOrEqual(times[2]);
    expect(times[2]).toBeGreaterThanOrEqual(times[3]);

    const firstPage = await must(`/observatories/${observatory.id}/history?limit=2`, { token: owner.token }, 200);
    expect(firstPage.items.map((item: { type: string }) => item.type)).toEqual(["organization_removed", "organization_permissions_updated"]);
    const secondPage = await must(`/observatories/${observatory.id}/history?limit=2&cursor=${firstPage.nextCursor}`, { token: owner.token }, 200);
    expect(secondPage.items.map((item: { type: string }) => item.type)).toEqual(["organization_added", "member_added"]);
    const lastPage = await must(`/observatories/${observatory.id}/history?limit=2&cursor=${secondPage.nextCursor}`, { token: owner.token }, 200);
    expect(lastPage).toEqual({ items: [expect.objectContaining({ type: "created" })], nextCursor: null });
  });

  it("goes on past an entry deleted since its page was read, and refuses a cursor it never gave", async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner);
    for (let index = 0; index < 4; index += 1) await addObservatoryMember(owner, observatory.id, await createAccount(server));
    const path = `/observatories/${observatory.id}/history`;
    const ids = (page: { items: Array<{ id: string }> }) => page.items.map((item) => item.id);
    const all = await must(path, { token: owner.token }, 200);
    expect(all.items).toHaveLength(5);
    const first = await must(`${path}?limit=2`, { token: owner.token }, 200);
    expect(ids(first)).toEqual(ids(all).slice(0, 2));
    await deleteRows(server.databaseUrl, "observatory_history", [first.items[1].id]);
    const second = await must(`${path}?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, { token: owner.token }, 200);
    expect(ids(second)).toEqual(ids(all).slice(2, 4));
    const viaTrpc = await trpcData<{ items: Array<{ id: string }> }>(
      await server.request(trpcQuery("observatories.history", { id: observatory.id, limit: 2, cursor: first.nextCursor }), { token: owner.token }),
    );
    expect(ids(viaTrpc)).toEqual(ids(all).slice(2, 4));

    for (const cursor of [...foreignCursors, all.items[2].id]) {
      await expectCursorRefused(await server.request(`${path}?cursor=${encodeURIComponent(cursor)}`, { token: owner.token }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("observatories.history", { id: observatory.id, cursor }), { token: owner.token }));
    }
  });
});

describe("tRPC observatories procedures", () => {
  it("answer like REST: create, myPermissions, and NOT_FOUND for an outsider", async () => {
    const owner = await createAccount(server);
    const outsider = await createAccount(server);
    const observatory = await trpcMutation<{ id: string; owner: unknown }>("observatories.create", { token: owner.token, json: { name: "Via tRPC" } });
    expect(observatory.owner).toMatchObject({ kind: "user", id: owner.id });
    const input = encodeURIComponent(JSON.stringify({ id: observatory.id }));
    const mine = await server.request(`/trpc/observatories.myPermissions?input=${input}`, { token: owner.token });
    expect(await trpcData(mine)).toMatchObject(ALL);
    const hidden = await server.request(`/trpc/observatories.get?input=${input}`, { token: outsider.token });
    expect(hidden.status).toBe(404);
    expect(await trpcErrorCode(hidden)).toBe("NOT_FOUND");
    const refused = await server.request("/trpc/observatories.addUser", {
      method: "POST",
      token: outsider.token,
      json: { id: observatory.id, email: outsider.email },
    });
    expect(await trpcErrorCode(refused)).toBe("NOT_FOUND");
  });
});

describe("how many members one observatory has", () => {
  const CAP = 10_000;
  const sql = () => server.server.runtime.deps.sql;
  const stored = async (observatoryId: string, kind: "user" | "organization") =>
    (
      await sql()<Array<{ count: number }>>`
        select count(*)::int as count from observatory_members where observatory_id = ${observatoryId} and member_kind = ${kind}`
    )[0]!.count;
  const addUser = (owner: Account, observatoryId: string, member: Account) =>
    server.request(`/observatories/${observatoryId}/members`, { method: "POST", token: owner.token, json: { email: member.email } });
  const addOrganization = (owner: Account, observatoryId: string, organizationId: string) =>
    server.request(`/observatories/${observatoryId}/members/organization`, { method: "POST", token: owner.token, json: { organizationId } });

  it(`refuses a user member past ${CAP} with 409 CONFLICT, added or by invitation, stores nothing, and lists every one`, async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner);
    const seed = await createAccount(server);
    await addObservatoryMember(owner, observatory.id, seed);
    const membership = { table: "observatory_members", scopeColumn: "observatory_id", scopeId: observatory.id, column: "member_id", field: "memberId" };
    await copyMembers(sql(), { userId: seed.id, copies: CAP - 2, membership });
    const refusal = `The observatory has ${CAP} user members, the most one may have; remove one first`;
    await expectMemberCapHeld({
      server,
      owner,
      base: `/observatories/${observatory.id}`,
      cap: CAP,
      refusal,
      add: (person) => addUser(owner, observatory.id, person),
      stored: () => stored(observatory.id, "user"),
      // The owning user first, then every member.
      listed: async () =>
        (await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200)).users.map((user: { userId: string }) => user.userId),
      extra: 1,
    });
  });

  it(`refuses a member organization past ${CAP} with 409 CONFLICT, stores nothing, and lists every one`, async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner);
    // Created before the copies, which the owner owns too (past their own cap, which only creations check).
    const [seed, last, beyond] = [await createOrganization(owner), await createOrganization(owner), await createOrganization(owner)];
    await addObservatoryOrganization(owner, observatory.id, seed.id);
    const [row] = await sql()<Array<{ id: string }>>`select id from observatory_members where observatory_id = ${observatory.id} and member_id = ${seed.id}`;
    await copyRow(sql(), { table: "organizations", id: seed.id, copies: CAP - 2, vary: { column: "short_name_lower", field: "shortName" } });
    await copyRow(sql(), { table: "observatory_members", id: row!.id, copies: CAP - 2, vary: { column: "member_id", field: "memberId" } });
    expect((await addOrganization(owner, observatory.id, last.id)).status).toBe(201);
    const refused = await expectProblem(await addOrganization(owner, observatory.id, beyond.id), 409, "CONFLICT");
    expect(refused.detail).toBe(`The observatory has ${CAP} member organizations, the most one may have; remove one first`);
    expect(await stored(observatory.id, "organization")).toBe(CAP);
    const list = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(list.organizations).toHaveLength(CAP);
    const listed = list.organizations.map((organization: { organizationId: string }) => organization.organizationId);
    expect(listed).toContain(last.id);
    expect(listed).not.toContain(beyond.id);
  });
});
