import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "history-admin@example.com", password: "history admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must, createOrganization, createObservatory, addObservatoryMember, addObservatoryOrganization } = jsonApi(() => server);

const NONE = { can_view: false, can_observe: false, can_operate: false, can_admin: false };
const ALL = { can_view: true, can_observe: true, can_operate: true, can_admin: true };
const VIEW = { ...NONE, can_view: true };

type HistoryItem = { id: string; type: string; at: string; actorId: string | null; actorName?: string | null; data: Record<string, unknown> };
const historyOf = async (token: string, observatoryId: string): Promise<HistoryItem[]> =>
  (await must(`/observatories/${observatoryId}/history?limit=200`, { token }, 200)).items;

describe("observatory history records every change with the actor and the before and after values", () => {
  it("creation, direct members added, changed, removed and leaving, settings and ownership, newest first", async () => {
    const owner = await createAccount(server, { name: "Olive Owner" });
    const helper = await createAccount(server, { name: "Hal Helper" });
    const leaver = await createAccount(server, { name: "Lee Leaver" });
    const observatory = await createObservatory(owner, { name: "Cerro Tololo" });

    await addObservatoryMember(owner, observatory.id, helper);
    await addObservatoryMember(owner, observatory.id, leaver, { can_view: true, can_observe: true });
    await must(`/observatories/${observatory.id}/members/${helper.id}`, { method: "PUT", token: owner.token, json: { permissions: { can_admin: true } } }, 200);
    const location = { latitude: -30.17, longitude: -70.8, elevation: 2207 };
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: helper.token, json: { name: "CTIO", location, dispatchEnabled: false } }, 200);
    await must(`/observatories/${observatory.id}/members/${leaver.id}`, { method: "DELETE", token: leaver.token }, 204);
    await must(`/observatories/${observatory.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { kind: "user", id: helper.id } }, 200);
    await must(`/observatories/${observatory.id}/members/${owner.id}`, { method: "DELETE", token: helper.token }, 204);

    const history = await historyOf(helper.token, observatory.id);
    expect(history.map((item) => item.type)).toEqual([
      "member_removed",
      "ownership_transferred",
      "member_removed",
      "settings_changed",
      "member_permissions_updated",
      "member_added",
      "member_added",
      "created",
    ]);
    const [removedOwner, transferred, left, settings, changed, addedLeaver, addedHelper, created] = history;
    expect(created).toMatchObject({
      actorId: owner.id,
      data: {
        name: "Cerro Tololo",
        owner: { kind: "user", id: owner.id },
        ownerName: "Olive Owner",
        settings: { name: "Cerro Tololo", location: null, dispatchEnabled: true },
      },
    });
    expect(addedHelper).toMatchObject({
      actorId: owner.id,
      data: { userId: helper.id, userName: "Hal Helper", email: helper.email, permissionsBefore: null, permissionsAfter: VIEW },
    });
    expect(addedLeaver).toMatchObject({ actorId: owner.id, data: { userId: leaver.id, permissionsAfter: { ...VIEW, can_observe: true } } });
    expect(changed).toMatchObject({ actorId: owner.id, data: { userId: helper.id, permissionsBefore: VIEW, permissionsAfter: { ...VIEW, can_admin: true } } });
    expect(settings).toMatchObject({
      actorId: helper.id,
      data: {
        changes: {
          name: { before: "Cerro Tololo", after: "CTIO" },
          location: { before: null, after: location },
          dispatchEnabled: { before: true, after: false },
        },
      },
    });
    expect(left).toMatchObject({
      actorId: leaver.id,
      data: { userId: leaver.id, left: true, permissionsBefore: { ...VIEW, can_observe: true }, permissionsAfter: null },
    });
    expect(transferred).toMatchObject({
      actorId: owner.id,
      data: { from: { kind: "user", id: owner.id }, fromName: "Olive Owner", to: { kind: "user", id: helper.id }, toName: "Hal Helper" },
    });
    expect(removedOwner).toMatchObject({ actorId: helper.id, data: { userId: owner.id, left: false, permissionsBefore: ALL, permissionsAfter: null } });
    const times = history.map((item) => Date.parse(item.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("an organization-owned observatory records created before organization_added, and the owner's name is the organization's", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Las Campanas" });
    const observatory = await createObservatory(owner, { name: "Magellan", organizationId: organization.id });
    const history = await historyOf(owner.token, observatory.id);
    expect(history.map((item) => item.type)).toEqual(["organization_added", "created"]);
    expect(history[1]).toMatchObject({ actorId: owner.id, data: { owner: { kind: "organization", id: organization.id }, ownerName: "Las Campanas" } });
  });

  it("names each entry's actor to whoever may read it: the owner's actions read as the owner's to an organization's admin", async () => {
    const owner = await createAccount(server, { name: "Nora Owner" });
    const orgAdmin = await createAccount(server, { name: "Omar Org" });
    const organization = await createOrganization(orgAdmin, { name: "Mount Stromlo" });
    const observatory = await createObservatory(owner, { name: "Siding Spring" });
    await addObservatoryOrganization(owner, observatory.id, organization.id, VIEW);
    // The organization's admin reaches the observatory through the organization, and the owner is no member of either list.
    const history = await historyOf(orgAdmin.token, observatory.id);
    expect(history.map((item) => [item.type, item.actorId, item.actorName])).toEqual([
      ["organization_added", owner.id, "Nora Owner"],
      ["created", owner.id, "Nora Owner"],
    ]);
  });

  it("a settings change records only the fields that changed, and an unchanged update records nothing", async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner, { name: "Palomar", location: { latitude: 33.36, longitude: -116.86, elevation: 1712 } });
    const updated = await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { location: null } }, 200);
    expect(updated).toMatchObject({ id: observatory.id, name: "Palomar", dispatchEnabled: true });
    expect(updated.location).toBeUndefined();
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { name: "Palomar", dispatchEnabled: true } }, 200);
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: {} }, 200);
    const history = await historyOf(owner.token, observatory.id);
    expect(history.map((item) => item.type)).toEqual(["settings_changed", "created"]);
    expect(history[0]!.data).toEqual({ changes: { location: { before: { latitude: 33.36, longitude: -116.86, elevation: 1712 }, after: null } } });
  });

  it("refused changes write no history: 403 for a viewer, 404 for a stranger, 409 for removing the owner, 400 for bad settings", async () => {
    const owner = await createAccount(server);
    const viewer = await createAccount(server);
    const stranger = await createAccount(server);
    const observatory = await createObservatory(owner);
    await addObservatoryMember(owner, observatory.id, viewer);
    const before = await historyOf(owner.token, observatory.id);

    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: viewer.token, json: { name: "Mine now" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: stranger.token, json: { name: "Mine now" } }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${viewer.id}`, {
        method: "PUT",
        token: viewer.token,
        json: { permissions: { can_admin: true } },
      }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}/members/${owner.id}`, { method: "DELETE", token: owner.token }),
      409,
      "OWNER_CANNOT_BE_REMOVED",
    );
    const bad = await expectProblem(
      await server.request(`/observatories/${observatory.id}`, {
        method: "PUT",
        token: owner.token,
        json: { location: { latitude: 91, longitude: 0, elevation: 0 } },
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(bad.errors?.[0]?.path).toBe("location.latitude");
    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { name: "" } }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request(`/observatories/${observatory.id}`, { method: "PUT", token: owner.token, json: { owner: "someone" } }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(await server.request(`/observatories/${observatory.id}`, { method: "PUT", json: { name: "Anonymous" } }), 401, "UNAUTHENTICATED");

    expect(await historyOf(owner.token, observatory.id)).toEqual(before);
    expect((await must(`/observatories/${observatory.id}`, { token: owner.token }, 200)).name).toBe(observatory.name);
  });

  it("a server admin may change settings; tRPC observatories.update answers like REST", async () => {
    const owner = await createAccount(server);
    const observatory = await createObservatory(owner);
    await must(`/observatories/${observatory.id}`, { method: "PUT", token: adminToken, json: { dispatchEnabled: false } }, 200);
    const response = await server.request("/trpc/observatories.update", {
      method: "POST",
      token: owner.token,
      json: { id: observatory.id, update: { name: "Renamed via tRPC" } },
    });
    expect(response.status).toBe(200);
    expect(await trpcData(response)).toMatchObject({ id: observatory.id, name: "Renamed via tRPC", dispatchEnabled: false });
    const history = await historyOf(owner.token, observatory.id);
    expect(history.slice(0, 2).map((item) => [item.type, item.actorId, item.data])).toEqual([
      ["settings_changed", owner.id, { changes: { name: { before: observatory.name, after: "Renamed via tRPC" } } }],
      ["settings_changed", expect.any(String), { changes: { dispatchEnabled: { before: true, after: false } } }],
    ]);
  });
});
