import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "audit-admin@example.com", password: "audit admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
/** Setup requests: `must` without a status accepts any success. */
const { must, createOrganization } = jsonApi(() => server);

interface Entry {
  id: string;
  at: string;
  action: string;
  actorId: string | null;
  actorName: string | null;
  target: { kind: string; id: string; name: string | null };
  scope: { kind: string; id: string; name: string | null };
  before: unknown;
  after: unknown;
}
const NONE = { can_manage_members: false, can_manage_observatories: false, can_manage_projects: false, can_manage_billing: false, can_manage_storage: false };
const ALL = { can_manage_members: true, can_manage_observatories: true, can_manage_projects: true, can_manage_billing: true, can_manage_storage: true };

const audit = async (path: string, token = adminToken) => (await must(path, { token })) as { items: Entry[]; nextCursor: string | null };
const ids = (entries: Entry[]) => entries.map((entry) => entry.id);
/**
 * Lets the clock move on by a couple of milliseconds, so that the change made next gets a later
 * millisecond than every change made before: time filters can then tell them apart.
 */
const nextMillisecond = async () => {
  const now = Date.now();
  while (Date.now() < now + 2) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe("GET /organizations/{id}/audit", () => {
  it("records every membership, permission and ownership change with actor, target, before/after and names at the time", async () => {
    const owner = await createAccount(server, { name: "Olive Owner" });
    const manager = await createAccount(server, { name: "Manny Manager" });
    const member = await createAccount(server, { name: "Mia Member" });
    const organization = await createOrganization(owner, { name: "Old Name Institute" });

    await must(`/organizations/${organization.id}/members`, {
      method: "POST",
      token: owner.token,
      json: { email: manager.email, permissions: { can_manage_members: true } },
    });
    await must(`/organizations/${organization.id}/members`, { method: "POST", token: manager.token, json: { email: member.email } });
    await must(`/organizations/${organization.id}/members/${member.id}`, {
      method: "PUT",
      token: manager.token,
      json: { permissions: { can_manage_projects: true } },
    });
    // Renames after the fact: the entries above keep the names they were written with.
    await must(`/organizations/${organization.id}`, { method: "PUT", token: owner.token, json: { name: "New Name Institute" } });
    await must("/api/v1/user/profile", { method: "PUT", token: member.token, json: { name: "Mia Renamed" } });
    await must(`/organizations/${organization.id}/members/${member.id}`, { method: "DELETE", token: manager.token });
    await must(`/organizations/${organization.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: manager.id } });
    await must(`/organizations/${organization.id}/members/${owner.id}`, { method: "DELETE", token: owner.token });

    const { items } = await audit(`/organizations/${organization.id}/audit`, manager.token);
    expect(items.map((entry) => entry.action)).toEqual([
      "organization.member_left",
      "organization.ownership_transferred",
      "organization.member_removed",
      "organization.updated",
      "organization.member_permissions_updated",
      "organization.member_added",
      "organization.member_added",
      "organization.created",
    ]);
    const [left, transferred, removed, updated, permissions, addedMember, addedManager, created] = items as [
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
      Entry,
    ];
    const oldScope = { kind: "organization", id: organization.id, name: "Old Name Institute" };
    const newScope = { ...oldScope, name: "New Name Institute" };

    expect(created).toMatchObject({
      actorId: owner.id,
      actorName: "Olive Owner",
      target: oldScope,
      scope: oldScope,
      after: { name: "Old Name Institute", ownerId: owner.id },
    });
    expect(addedManager).toMatchObject({
      actorId: owner.id,
      actorName: "Olive Owner",
      target: { kind: "user", id: manager.id, name: "Manny Manager" },
      scope: oldScope,
      before: null,
      after: { email: manager.email, permissions: { ...NONE, can_manage_members: true } },
    });
    expect(addedMember).toMatchObject({
      actorId: manager.id,
      actorName: "Manny Manager",
      target: { kind: "user", id: member.id, name: "Mia Member" },
      scope: oldScope,
      after: { permissions: NONE },
    });
    expect(permissions).toMatchObject({
      actorId: manager.id,
      target: { kind: "user", id: member.id, name: "Mia Member" },
      scope: oldScope,
      before: NONE,
      after: { ...NONE, can_manage_projects: true },
    });
    expect(updated).toMatchObject({ actorId: owner.id, scope: newScope, before: { name: "Old Name Institute" }, after: { name: "New Name Institute" } });
    expect(removed).toMatchObject({
      actorId: manager.id,
      target: { kind: "user", id: member.id, name: "Mia Renamed" },
      scope: newScope,
      before: { permissions: { ...NONE, can_manage_projects: true } },
    });
    expect(transferred).toMatchObject({
      actorId: owner.id,
      target: { kind: "user", id: manager.id, name: "Manny Manager" },
      scope: newScope,
      before: { ownerId: owner.id },
      after: { ownerId: manager.id },
    });
    expect(left).toMatchObject({ actorId: owner.id, target: { kind: "user", id: owner.id, name: "Olive Owner" }, before: { permissions: ALL } });
    for (const entry of items) expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Newest first, by time.
    const times = items.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("holds only its own organization's entries and pages through them with limit and cursor", async () => {
    const owner = await createAccount(server);
    const other = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Paged" });
    const elsewhere = await createOrganization(other, { name: "Elsewhere" });
    for (let index = 0; index < 3; index += 1) {
      const user = await createAccount(server);
      await must(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: { email: user.email } });
    }
    await must(`/organizations/${elsewhere.id}/members`, { method: "POST", token: other.token, json: { email: owner.email } });

    const all = await audit(`/organizations/${organization.id}/audit`, owner.token);
    expect(all.items).toHaveLength(4);
    expect(all.items.every((entry) => entry.scope.id === organization.id)).toBe(true);
    expect(all.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Entry[]; nextCursor: string | null } = await audit(
        `/organizations/${organization.id}/audit?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        owner.token,
      );
      expect(page.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.items.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.items.map((entry) => entry.id));
    await expectProblem(await server.request(`/organizations/${organization.id}/audit?limit=201`, { token: owner.token }), 400, "VALIDATION_FAILED");
  });

  it("goes on past an entry deleted since its page was read, and refuses a cursor it never gave", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    for (let index = 0; index < 4; index += 1) {
      const user = await createAccount(server);
      await must(`/organizations/${organization.id}/members`, { method: "POST", token: owner.token, json: { email: user.email } });
    }
    const path = `/organizations/${organization.id}/audit`;
    const all = await audit(path, owner.token);
    expect(all.items).toHaveLength(5);
    const first = await audit(`${path}?limit=2`, owner.token);
    expect(ids(first.items)).toEqual(ids(all.items).slice(0, 2));
    // Pruned between two page reads: the entry the cursor was made from is gone.
    await deleteRows(server.databaseUrl, "audit_log", [first.items[1]!.id]);
    const second = await audit(`${path}?limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`, owner.token);
    expect(ids(second.items)).toEqual(ids(all.items).slice(2, 4));
    const viaTrpc = await trpcData<{ items: Entry[] }>(
      await server.request(trpcQuery("organizations.audit", { id: organization.id, limit: 2, cursor: first.nextCursor }), { token: owner.token }),
    );
    expect(ids(viaTrpc.items)).toEqual(ids(all.items).slice(2, 4));

    for (const cursor of [...foreignCursors, all.items[2]!.id]) {
      await expectCursorRefused(await server.request(`${path}?cursor=${encodeURIComponent(cursor)}`, { token: owner.token }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("organizations.audit", { id: organization.id, cursor }), { token: owner.token }));
    }
  });
});

describe("GET /api/v1/admin/audit", () => {
  it("holds organization, observatory and project changes, filtered by actor, target, scope and time", async () => {
    const alice = await createAccount(server, { name: "Alice Audit" });
    const bob = await createAccount(server, { name: "Bob Audit" });
    const organization = await createOrganization(alice, { name: "Filter Org" });
    const observatory = (await must("/observatories", { method: "POST", token: bob.token, json: { name: "Filter Observatory" } })) as { id: string };
    const first = await audit(`/api/v1/admin/audit?scopeId=${observatory.id}`);
    expect(first.items.map((entry) => entry.action)).toEqual(["observatory.created"]);
    const observatoryCreatedAt = first.items[0]!.at;
    await nextMillisecond();
    await must(`/observatories/${observatory.id}/members/organization`, {
      method: "POST",
      token: bob.token,
      json: { organizationId: organization.id, permissions: { can_view: true } },
    });
    await nextMillisecond();
    await must(`/observatories/${observatory.id}/members`, { method: "POST", token: bob.token, json: { email: alice.email } });
    const project = (await must("/projects", { method: "POST", token: alice.token, json: { name: "Filter Project" } })) as { id: string };
    await must(`/projects/${project.id}/members`, { method: "POST", token: alice.token, json: { email: bob.email, role: "admin" } });

    const byBob = await audit(`/api/v1/admin/audit?actorId=${bob.id}`);
    expect(byBob.items.map((entry) => entry.action)).toEqual(["observatory.member_added", "observatory.organization_added", "observatory.created"]);
    expect(byBob.items.every((entry) => entry.actorId === bob.id && entry.actorName === "Bob Audit")).toBe(true);
    expect(byBob.items[1]).toMatchObject({
      target: { kind: "organization", id: organization.id, name: "Filter Org" },
      scope: { kind: "observatory", id: observatory.id, name: "Filter Observatory" },
      after: { permissions: { can_view: true } },
    });

    const aboutAlice = await audit(`/api/v1/admin/audit?targetId=${alice.id}`);
    expect(aboutAlice.items.map((entry) => [entry.action, entry.actorId])).toEqual([["observatory.member_added", bob.id]]);
    const aboutOrganization = await audit(`/api/v1/admin/audit?targetId=${organization.id}`);
    expect(aboutOrganization.items.map((entry) => entry.action)).toEqual(["observatory.organization_added", "organization.created"]);

    const projects = await audit(`/api/v1/admin/audit?scopeKind=project&actorId=${alice.id}`);
    expect(projects.items.map((entry) => entry.action)).toEqual(["project.member_added", "project.created"]);
    expect(projects.items[0]).toMatchObject({
      target: { kind: "user", id: bob.id, name: "Bob Audit" },
      scope: { kind: "project", id: project.id, name: "Filter Project" },
      after: { role: "admin" },
    });
    const organizations = await audit(`/api/v1/admin/audit?scopeKind=organization&actorId=${alice.id}`);
    expect(organizations.items.map((entry) => entry.action)).toEqual(["organization.created"]);

    // Time: `from` and `to` are inclusive, to the millisecond the entries show.
    const scoped = `/api/v1/admin/audit?scopeId=${observatory.id}`;
    const everything = await audit(scoped);
    expect(everything.items.map((entry) => entry.action)).toEqual(["observatory.member_added", "observatory.organization_added", "observatory.created"]);
    const untilCreation = await audit(`${scoped}&to=${encodeURIComponent(observatoryCreatedAt)}`);
    expect(untilCreation.items.map((entry) => entry.action)).toEqual(["observatory.created"]);
    const sinceMembers = await audit(`${scoped}&from=${encodeURIComponent(everything.items[1]!.at)}`);
    expect(sinceMembers.items.map((entry) => entry.action)).toEqual(["observatory.member_added", "observatory.organization_added"]);
    const window = await audit(`${scoped}&from=${encodeURIComponent(observatoryCreatedAt)}&to=${encodeURIComponent(everything.items[1]!.at)}`);
    expect(window.items.map((entry) => entry.action)).toEqual(["observatory.organization_added", "observatory.created"]);
    const future = await audit(`${scoped}&from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(future.items).toEqual([]);
  });

  it("goes on past an entry deleted since its page was read, and refuses a cursor it never gave", async () => {
    const owner = await createAccount(server);
    const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Pruned Audit" } })) as { id: string };
    for (let index = 0; index < 4; index += 1) {
      const user = await createAccount(server);
      await must(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: user.email } });
    }
    const path = `/api/v1/admin/audit?scopeId=${observatory.id}`;
    const all = await audit(path);
    expect(all.items).toHaveLength(5);
    const first = await audit(`${path}&limit=2`);
    expect(ids(first.items)).toEqual(ids(all.items).slice(0, 2));
    await deleteRows(server.databaseUrl, "audit_log", [first.items[1]!.id]);
    const second = await audit(`${path}&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(ids(second.items)).toEqual(ids(all.items).slice(2, 4));
    const viaTrpc = await trpcData<{ items: Entry[] }>(
      await server.request(trpcQuery("admin.audit", { scopeId: observatory.id, limit: 2, cursor: first.nextCursor }), { token: adminToken }),
    );
    expect(ids(viaTrpc.items)).toEqual(ids(all.items).slice(2, 4));

    for (const cursor of [...foreignCursors, all.items[2]!.id]) {
      await expectCursorRefused(await server.request(`${path}&cursor=${encodeURIComponent(cursor)}`, { token: adminToken }));
      await expectTrpcCursorRefused(await server.request(trpcQuery("admin.audit", { cursor }), { token: adminToken }));
    }
  });

  it.each([
    ["a malformed from", "from=yesterday"],
    ["a date without time", "to=2026-01-01"],
    ["a moment in year 0000", "from=0000-01-01T00:00:00Z"],
    ["a moment that is year 0000 in UTC", "to=0001-01-01T00:00:00%2B05:00"],
    ["a moment that is year 10000 in UTC", "to=9999-12-31T23:00:00-05:00"],
    ["an unknown scope kind", "scopeKind=galaxy"],
    ["a limit above 200", "limit=500"],
  ])("refuses %s with 400", async (_label, query) => {
    await expectProblem(await server.request(`/api/v1/admin/audit?${query}`, { token: adminToken }), 400, "VALIDATION_FAILED");
  });

  it("reads up to the last moment PostgreSQL holds, inclusive as any other", async () => {
    const everything = (await must("/api/v1/admin/audit?limit=200", { token: adminToken }, 200)) as { items: Array<{ id: string }> };
    const untilTheEnd = (await must("/api/v1/admin/audit?limit=200&to=9999-12-31T23:59:59.999Z", { token: adminToken }, 200)) as typeof everything;
    expect(untilTheEnd.items.map((item) => item.id)).toEqual(everything.items.map((item) => item.id));
    expect(everything.items.length).toBeGreaterThan(0);
  });
});
