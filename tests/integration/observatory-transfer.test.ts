import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectOneCreatedOneRefused, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { copyRow } from "../support/row-copies";
import { holdRows, lockWaiters, queuedBehindHold } from "../support/table-hold";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "transfer-admin@example.com", password: "transfer admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must, call, createOrganization, addOrganizationMember, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(() => server);

const ALL = { can_view: true, can_observe: true, can_operate: true, can_admin: true };

const transfer = (token: string, observatoryId: string, to: { kind: string; id: string }) =>
  server.request(`/observatories/${observatoryId}/transfer-ownership`, { method: "POST", token, json: to });
const permissionsOf = (token: string, observatoryId: string) => must(`/observatories/${observatoryId}/permissions/me`, { token }, 200);

/**
 * Holds one membership row of the observatory: `first` reaches it and waits, then `second` queues behind it (on the
 * observatory's row, which `first` holds, or on the membership); then the hold ends and both finish.
 */
async function queueOnMembership(
  membership: { observatoryId: string; kind: "user" | "organization"; memberId: string },
  first: () => Promise<{ status: number; body: unknown }>,
  second: () => Promise<{ status: number; body: unknown }>,
) {
  const hold = await holdRows(
    server.databaseUrl,
    `select id from observatory_members where observatory_id = '${membership.observatoryId}' and member_kind = '${membership.kind}'
        and member_id = '${membership.memberId}' for update`,
  );
  try {
    const one = first();
    await until("the first request to wait for the membership row", async () => (await hold.waiters()) >= 1, { intervalMs: 5 });
    const two = second();
    await until("the second request to wait behind it", async () => (await lockWaiters(server.server.runtime.deps.sql)) >= 2, { intervalMs: 5 });
    await hold.release();
    return await Promise.all([one, two]);
  } finally {
    await hold.release();
  }
}

describe("POST /observatories/{id}/transfer-ownership to a user", () => {
  it("needs the user to be a member (409 NOT_A_MEMBER), then hands over; the previous owner keeps full access", async () => {
    const owner = await createAccount(server);
    const heir = await createAccount(server);
    const observatory = await createObservatory(owner, { name: "Transferable" });

    await expectProblem(await transfer(owner.token, observatory.id, { kind: "user", id: heir.id }), 409, "NOT_A_MEMBER");
    await expectProblem(await transfer(owner.token, observatory.id, { kind: "user", id: "usr_nobody" }), 409, "NOT_A_MEMBER");
    expect((await must(`/observatories/${observatory.id}`, { token: owner.token }, 200)).owner).toMatchObject({ kind: "user", id: owner.id });

    await addObservatoryMember(owner, observatory.id, heir);
    const response = await transfer(owner.token, observatory.id, { kind: "user", id: heir.id });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: observatory.id, owner: { kind: "user", id: heir.id } });

    const members = await must(`/observatories/${observatory.id}/members`, { token: heir.token }, 200);
    expect(members.users).toEqual([
      { userId: heir.id, email: heir.email, name: expect.any(String), permissions: ALL, source: "owner" },
      { userId: owner.id, email: owner.email, name: expect.any(String), permissions: ALL, source: "direct" },
    ]);
    expect(await permissionsOf(heir.token, observatory.id)).toEqual({ ...ALL, sources: [{ kind: "owner", permissions: ALL }] });
    expect(await permissionsOf(owner.token, observatory.id)).toEqual({ ...ALL, sources: [{ kind: "direct", permissions: ALL }] });

    // Administering is not owning: the previous owner may no longer transfer.
    await expectProblem(await transfer(owner.token, observatory.id, { kind: "user", id: owner.id }), 403, "FORBIDDEN");
    const history = await must(`/observatories/${observatory.id}/history`, { token: heir.token }, 200);
    expect(history.items[0]).toMatchObject({
      type: "ownership_transferred",
      actorId: owner.id,
      data: { from: { kind: "user", id: owner.id }, to: { kind: "user", id: heir.id } },
    });
  });

  it("refuses a malformed target with 400", async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner, { name: "Transferable" });
    for (const json of [{ kind: "team", id: owner.id }, { kind: "user" }, { kind: "user", id: owner.id, force: true }]) {
      await expectProblem(
        await server.request(`/observatories/${observatory.id}/transfer-ownership`, { method: "POST", token: owner.token, json }),
        400,
        "VALIDATION_FAILED",
      );
    }
  });
});

describe("POST /observatories/{id}/transfer-ownership to an organization", () => {
  it("makes the organization owner and a member with all four permissions, which then cannot be removed", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const orgMember = await createAccount(server);
    const organization = await createOrganization(orgOwner, { name: "Receiving Org" });
    await addOrganizationMember(orgOwner, organization.id, orgMember);
    const observatory = await createObservatory(owner, { name: "Transferable" });
    // Already a member with little: the transfer raises it to all four.
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true });

    const response = await transfer(owner.token, observatory.id, { kind: "organization", id: organization.id });
    expect(response.status).toBe(200);
    expect((await response.json()).owner).toMatchObject({ kind: "organization", id: organization.id });

    const members = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(members.organizations).toEqual([{ organizationId: organization.id, name: "Receiving Org", permissions: ALL, owning: true }]);
    expect(members.users).toEqual([{ userId: owner.id, email: owner.email, name: expect.any(String), permissions: ALL, source: "direct" }]);
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: owner.token }),
      409,
      "OWNING_ORGANIZATION_CANNOT_BE_REMOVED",
    );

    // The previous owner keeps full access; the organization's owner administers; its members observe.
    expect(await permissionsOf(owner.token, observatory.id)).toMatchObject(ALL);
    expect(await permissionsOf(orgOwner.token, observatory.id)).toMatchObject(ALL);
    expect(await permissionsOf(orgMember.token, observatory.id)).toMatchObject({ can_view: true, can_observe: true, can_operate: false, can_admin: false });

    const history = await must(`/observatories/${observatory.id}/history`, { token: owner.token }, 200);
    expect(history.items.map((item: { type: string }) => item.type)).toEqual(
      expect.arrayContaining(["ownership_transferred", "organization_permissions_updated", "organization_added"]),
    );
    expect(history.items.find((item: { type: string }) => item.type === "organization_permissions_updated").data).toMatchObject({
      organizationId: organization.id,
      organizationName: "Receiving Org",
      permissionsBefore: { can_view: true, can_observe: false, can_operate: false, can_admin: false },
      permissionsAfter: ALL,
    });
  });

  it("lets the owning organization's owner and a server admin transfer, not its administrators", async () => {
    const orgOwner = await createAccount(server);
    const orgAdmin = await createAccount(server);
    const heir = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    const second = await createOrganization(orgOwner);
    await addOrganizationMember(orgOwner, organization.id, orgAdmin, { can_manage_members: true, can_manage_observatories: true });
    const observatory = await createObservatory(orgAdmin, { name: "Transferable", organizationId: organization.id });
    await addObservatoryMember(orgAdmin, observatory.id, heir);

    await expectProblem(await transfer(orgAdmin.token, observatory.id, { kind: "user", id: heir.id }), 403, "FORBIDDEN");
    await expectProblem(await transfer(heir.token, observatory.id, { kind: "user", id: heir.id }), 403, "FORBIDDEN");
    // To another organization: the first stays a member with every permission, no longer owning and so removable.
    expect((await (await transfer(orgOwner.token, observatory.id, { kind: "organization", id: second.id })).json()).owner).toMatchObject({
      kind: "organization",
      id: second.id,
    });
    const members = await must(`/observatories/${observatory.id}/members`, { token: orgOwner.token }, 200);
    expect(
      members.organizations.map((item: { organizationId: string; owning: boolean; permissions: unknown }) => [
        item.organizationId,
        item.owning,
        item.permissions,
      ]),
    ).toEqual([
      [organization.id, false, ALL],
      [second.id, true, ALL],
    ]);
    // A server admin may transfer any observatory.
    const byAdmin = await transfer(adminToken, observatory.id, { kind: "user", id: heir.id });
    expect(byAdmin.status).toBe(200);
    expect(await permissionsOf(heir.token, observatory.id)).toMatchObject({ ...ALL, sources: [{ kind: "owner", permissions: ALL }] });
    await must(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: heir.token }, 204);
    await expectProblem(await server.request(`/observatories/${observatory.id}`, { token: orgAdmin.token }), 404, "NOT_FOUND");
  });
});

/**
 * A membership change that read the observatory before its transfer committed must not undo what the transfer
 * guarantees: membership writes take the observatory's row lock first, as the transfer does, so they judge its owner
 * after the transfer.
 */
describe("membership changes racing a transfer", () => {
  it("keeps the receiving organization a member with every permission when its removal is under way", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const organization = await createOrganization(orgOwner, { name: "Heir Org" });
    const observatory = await createObservatory(owner, { name: "Contested" });
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true });

    const [removed, transferred] = await queueOnMembership(
      { observatoryId: observatory.id, kind: "organization", memberId: organization.id },
      () => call(`/observatories/${observatory.id}/members/organization/${organization.id}`, { method: "DELETE", token: owner.token }),
      () =>
        call(`/observatories/${observatory.id}/transfer-ownership`, {
          method: "POST",
          token: owner.token,
          json: { kind: "organization", id: organization.id },
        }),
    );

    // The removal first, then the transfer, which makes the organization a member again: it need not be one beforehand.
    expect([removed.status, transferred.status]).toEqual([204, 200]);
    expect((await must(`/observatories/${observatory.id}`, { token: owner.token }, 200)).owner).toMatchObject({ kind: "organization", id: organization.id });
    const members = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(members.organizations).toEqual([{ organizationId: organization.id, name: "Heir Org", permissions: ALL, owning: true }]);
    expect(await permissionsOf(orgOwner.token, observatory.id)).toMatchObject(ALL);
  });

  it("refuses a reduction of the receiving organization's permissions that waited for the transfer: 409 OWNER_PERMISSIONS_FIXED", async () => {
    const owner = await createAccount(server);
    const orgOwner = await createAccount(server);
    const organization = await createOrganization(orgOwner, { name: "Heir Org" });
    const observatory = await createObservatory(owner, { name: "Contested" });
    await addObservatoryOrganization(owner, observatory.id, organization.id, { can_view: true, can_observe: true });

    const [transferred, reduced] = await queueOnMembership(
      { observatoryId: observatory.id, kind: "organization", memberId: organization.id },
      () =>
        call(`/observatories/${observatory.id}/transfer-ownership`, {
          method: "POST",
          token: owner.token,
          json: { kind: "organization", id: organization.id },
        }),
      () =>
        call(`/observatories/${observatory.id}/members/organization/${organization.id}`, {
          method: "PUT",
          token: owner.token,
          json: { permissions: { can_observe: false } },
        }),
    );

    expect(transferred.status).toBe(200);
    expect({ status: reduced.status, code: (reduced.body as { code?: string } | null)?.code }).toEqual({ status: 409, code: "OWNER_PERMISSIONS_FIXED" });
    const members = await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200);
    expect(members.organizations).toEqual([{ organizationId: organization.id, name: "Heir Org", permissions: ALL, owning: true }]);
    expect(await permissionsOf(orgOwner.token, observatory.id)).toMatchObject(ALL);
  });

  it("does not let the receiving user leave once the transfer under way has made them the owner: 409 OWNER_CANNOT_BE_REMOVED", async () => {
    const owner = await createAccount(server);
    const heir = await createAccount(server);
    const observatory = await createObservatory(owner, { name: "Contested" });
    await addObservatoryMember(owner, observatory.id, heir);

    const [transferred, left] = await queueOnMembership(
      { observatoryId: observatory.id, kind: "user", memberId: heir.id },
      () => call(`/observatories/${observatory.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { kind: "user", id: heir.id } }),
      () => call(`/observatories/${observatory.id}/members/${heir.id}`, { method: "DELETE", token: heir.token }),
    );

    expect(transferred.status).toBe(200);
    expect({ status: left.status, code: (left.body as { code?: string } | null)?.code }).toEqual({ status: 409, code: "OWNER_CANNOT_BE_REMOVED" });
    expect(await permissionsOf(heir.token, observatory.id)).toEqual({ ...ALL, sources: [{ kind: "owner", permissions: ALL }] });
    const history = await must(`/observatories/${observatory.id}/history`, { token: heir.token }, 200);
    expect(history.items.map((item: { type: string }) => item.type)).not.toContain("member_removed");
  });
});

describe("how many observatories one user or organization owns", () => {
  const OWNED = 1_000;
  const ORGANIZATION_OWNED = 10_000;
  const sql = () => server.server.runtime.deps.sql;
  /** Live observatories of an owner, as the caps count them. */
  const liveOf = async (kind: "user" | "organization", id: string) =>
    (
      await sql()<Array<{ count: number }>>`
        select count(*)::int as count from observatories where owner_kind = ${kind} and owner_id = ${id} and doc->>'removedAt' is null`
    )[0]!.count;
  /** One observatory through the API, then as many copies of its row as make `count`. */
  const seedObservatories = async (owner: Account, count: number, organizationId?: string) => {
    const first = await createObservatory(owner, { name: "Seeded", ...(organizationId ? { organizationId } : {}) });
    await copyRow(sql(), { table: "observatories", id: first.id, copies: count - 1 });
    return first;
  };
  const create = (owner: Account, json: Record<string, unknown> = {}) =>
    server.request("/observatories", { method: "POST", token: owner.token, json: { name: "One more", ...json } });
  const userRefusal = `You own ${OWNED} observatories, the most one account may own; remove or transfer one first`;

  it(`refuses a user's observatory past ${OWNED} live ones with 409 CONFLICT, and takes one again once one is removed`, async () => {
    const owner = await createAccount(server);
    const first = await seedObservatories(owner, OWNED - 1);
    expect((await create(owner)).status).toBe(201);
    const refused = await expectProblem(await create(owner, { name: "Refused" }), 409, "CONFLICT");
    expect(refused.detail).toBe(userRefusal);
    expect(await liveOf("user", owner.id)).toBe(OWNED);
    expect((await sql()`select id from observatories where doc->>'name' = 'Refused'`).length).toBe(0);
    // A removed observatory keeps its row, and no longer counts.
    expect((await server.request(`/observatories/${first.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await create(owner)).status).toBe(201);
  });

  it("lets exactly one of two creations at a user's last place win, the other 409 CONFLICT", async () => {
    const owner = await createAccount(server);
    await seedObservatories(owner, OWNED - 1);
    // Both count under the owner's row: the first waits at it, the second queues behind.
    const hold = await holdRows(server.databaseUrl, `select id from users where id = '${owner.id}' for update`);
    const answers = await queuedBehindHold({ hold, sql: sql(), first: () => create(owner), second: () => create(owner) });
    await expectOneCreatedOneRefused(answers, userRefusal);
    expect(await liveOf("user", owner.id)).toBe(OWNED);
  });

  it("refuses a transfer to a member who owns as many already: 409 CONFLICT, and the owner and the membership stay", async () => {
    const owner = await createAccount(server);
    const heir = await createAccount(server);
    const observatory = await createObservatory(owner, { name: "Wanted" });
    await addObservatoryMember(owner, observatory.id, heir);
    await seedObservatories(heir, OWNED);
    const refused = await expectProblem(await transfer(owner.token, observatory.id, { kind: "user", id: heir.id }), 409, "CONFLICT");
    expect(refused.detail).toBe(`The new owner already owns ${OWNED} observatories, the most one account may own; remove or transfer one first`);
    expect((await must(`/observatories/${observatory.id}`, { token: owner.token }, 200)).owner).toMatchObject({ kind: "user", id: owner.id });
    expect(
      (await must(`/observatories/${observatory.id}/members`, { token: owner.token }, 200)).users.map((user: { userId: string }) => user.userId),
    ).toContain(heir.id);
    expect(await liveOf("user", heir.id)).toBe(OWNED);
  });

  it(`refuses an organization's observatory past ${ORGANIZATION_OWNED}, created or transferred to it, with 409 CONFLICT`, async () => {
    const orgOwner = await createAccount(server);
    const organization = await createOrganization(orgOwner);
    await seedObservatories(orgOwner, ORGANIZATION_OWNED - 1, organization.id);
    expect((await create(orgOwner, { organizationId: organization.id })).status).toBe(201);
    const refused = await expectProblem(await create(orgOwner, { organizationId: organization.id }), 409, "CONFLICT");
    expect(refused.detail).toBe(`The organization owns ${ORGANIZATION_OWNED} observatories, the most one organization may own; remove or transfer one first`);
    const observatory = await createObservatory(orgOwner, { name: "Personal" });
    const transferred = await expectProblem(await transfer(orgOwner.token, observatory.id, { kind: "organization", id: organization.id }), 409, "CONFLICT");
    expect(transferred.detail).toBe(
      `The organization already owns ${ORGANIZATION_OWNED} observatories, the most one organization may own; remove or transfer one first`,
    );
    expect((await must(`/observatories/${observatory.id}`, { token: orgOwner.token }, 200)).owner).toMatchObject({ kind: "user", id: orgOwner.id });
    expect(await liveOf("organization", organization.id)).toBe(ORGANIZATION_OWNED);
  });
});
