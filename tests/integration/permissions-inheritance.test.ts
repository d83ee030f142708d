import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
});
afterAll(() => server?.stop());

const json = async (response: Response) => ({ status: response.status, body: await response.json().catch(() => null) });

describe("observatory permissions inherited through organizations", () => {
  it("gives organization members what their role inherits, capped by the grant, and takes it away when they leave", async () => {
    const owner = await signupUser(server);
    const orgOwner = await signupUser(server);
    const member = await signupUser(server);
    const admin = await signupUser(server);
    const stranger = await signupUser(server);

    const observatory = await json(await server.request("/observatories", { method: "POST", token: owner.token, json: { name: "Kitt Peak" } }));
    expect(observatory.status).toBe(201);
    const observatoryId = observatory.body.id as string;

    const organization = await json(
      await server.request("/organizations", {
        method: "POST",
        token: orgOwner.token,
        json: { name: "Lowell", shortName: "lowell", type: "observatory", contactEmail: "contact@lowell.example" },
      }),
    );
    expect(organization.status).toBe(201);
    const organizationId = organization.body.id as string;
    expect(
      (await server.request(`/organizations/${organizationId}/members`, { method: "POST", token: orgOwner.token, json: { email: member.user.email } })).status,
    ).toBe(201);
    expect(
      (
        await server.request(`/organizations/${organizationId}/members`, {
          method: "POST",
          token: orgOwner.token,
          json: { email: admin.user.email, permissions: { can_manage_members: true } },
        })
      ).status,
    ).toBe(201);

    // Before the organization joins, its members see nothing (404, not 403).
    expect((await server.request(`/observatories/${observatoryId}`, { token: member.token })).status).toBe(404);

    const added = await server.request(`/observatories/${observatoryId}/members/organization`, {
      method: "POST",
      token: owner.token,
      json: { organizationId, permissions: { can_view: true, can_observe: true, can_operate: true, can_admin: false } },
    });
    expect(added.status).toBe(201);

    const memberPermissions = await json(await server.request(`/observatories/${observatoryId}/permissions/me`, { token: member.token }));
    expect(memberPermissions.body).toMatchObject({ can_view: true, can_observe: true, can_operate: false, can_admin: false });
    const adminPermissions = await json(await server.request(`/observatories/${observatoryId}/permissions/me`, { token: admin.token }));
    // Admins inherit can_admin + can_operate, but the organization was granted no can_admin.
    expect(adminPermissions.body).toMatchObject({ can_view: true, can_observe: true, can_operate: true, can_admin: false });
    expect((await server.request(`/observatories/${observatoryId}`, { token: stranger.token })).status).toBe(404);

    const list = await json(await server.request("/observatories", { token: member.token }));
    expect(list.body.items.map((item: { id: string }) => item.id)).toEqual([observatoryId]);

    // The member cannot administer; the admin cannot either (capped).
    expect(
      (await server.request(`/observatories/${observatoryId}/members`, { method: "POST", token: admin.token, json: { email: stranger.user.email } })).status,
    ).toBe(403);

    // Leaving the organization removes access on the very next request.
    expect(
      (await server.request(`/organizations/${organizationId}/members/${member.user.id}`, { method: "DELETE", token: member.token, headers: {} })).status,
    ).toBe(204);
    expect((await server.request(`/observatories/${observatoryId}`, { token: member.token })).status).toBe(404);

    const history = await json(await server.request(`/observatories/${observatoryId}/history`, { token: owner.token }));
    expect(history.body.items[0]).toMatchObject({ type: "organization_added", actorId: owner.user.id, data: { organizationId, organizationName: "Lowell" } });
  });

  it("lets exactly one of concurrent creations with one short name succeed", async () => {
    const users = await Promise.all([0, 1, 2, 3, 4].map(() => signupUser(server)));
    const statuses = await Promise.all(
      users.map((user, index) =>
        server
          .request("/organizations", {
            method: "POST",
            token: user.token,
            json: { name: `Org ${index}`, shortName: index % 2 ? "SameName" : "samename", type: "university", contactEmail: "x@example.com" },
          })
          .then(async (response) => ({ status: response.status, code: response.status === 409 ? (await response.json()).code : undefined })),
      ),
    );
    expect(statuses.filter((result) => result.status === 201)).toHaveLength(1);
    expect(statuses.filter((result) => result.status === 409 && result.code === "SHORT_NAME_TAKEN")).toHaveLength(4);
  });

  it("pages through exactly the observatories a user can view, with their permissions", async () => {
    const owner = await signupUser(server);
    const viewer = await signupUser(server);
    const create = async (name: string, token: string) =>
      (await json(await server.request("/observatories", { method: "POST", token, json: { name } }))).body.id as string;
    const own = await create("Own", viewer.token);
    const direct = await create("Direct", owner.token);
    const viaOrg = await create("Via organization", owner.token);
    const emptyGrant = await create("Empty grant", owner.token);
    await create("Hidden", owner.token);
    const grant = (id: string, permissions: Record<string, boolean>) =>
      server.request(`/observatories/${id}/members`, { method: "POST", token: owner.token, json: { email: viewer.user.email, permissions } });
    expect((await grant(direct, { can_view: false, can_observe: false, can_operate: true, can_admin: false })).status).toBe(201);
    expect((await grant(emptyGrant, { can_view: false, can_observe: false, can_operate: false, can_admin: false })).status).toBe(201);
    const organization = await json(
      await server.request("/organizations", {
        method: "POST",
        token: owner.token,
        json: { name: "Paging", shortName: "paging-org", type: "other", contactEmail: "p@example.com" },
      }),
    );
    await server.request(`/organizations/${organization.body.id}/members`, { method: "POST", token: owner.token, json: { email: viewer.user.email } });
    await server.request(`/observatories/${viaOrg}/members/organization`, {
      method: "POST",
      token: owner.token,
      json: { organizationId: organization.body.id, permissions: { can_admin: true } },
    });

    const seen: Array<{ id: string; myPermissions: Record<string, boolean> }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await json(await server.request(`/observatories?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { token: viewer.token }));
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen.map((item) => item.id).sort()).toEqual([own, direct, viaOrg].sort());
    const byId = new Map(seen.map((item) => [item.id, item.myPermissions]));
    expect(byId.get(own)).toEqual({ can_view: true, can_observe: true, can_operate: true, can_admin: true });
    expect(byId.get(direct)).toEqual({ can_view: true, can_observe: true, can_operate: true, can_admin: false });
    // A regular organization member inherits view + observe, whatever more the organization holds.
    expect(byId.get(viaOrg)).toEqual({ can_view: true, can_observe: true, can_operate: false, can_admin: false });
    expect((await server.request(`/observatories/${emptyGrant}`, { token: viewer.token })).status).toBe(404);
  });

  it("lets only one of two concurrent ownership transfers through", async () => {
    const owner = await signupUser(server);
    const first = await signupUser(server);
    const second = await signupUser(server);
    const created = await json(
      await server.request("/organizations", {
        method: "POST",
        token: owner.token,
        json: { name: "Race", shortName: "race-org", type: "other", contactEmail: "r@example.com" },
      }),
    );
    const id = created.body.id as string;
    for (const member of [first, second]) {
      expect((await server.request(`/organizations/${id}/members`, { method: "POST", token: owner.token, json: { email: member.user.email } })).status).toBe(
        201,
      );
    }
    const results = await Promise.all(
      [first, second].map((member) =>
        server.request(`/organizations/${id}/transfer-ownership`, { method: "POST", token: owner.token, json: { userId: member.user.id } }),
      ),
    );
    // The row lock makes the second transfer see that the caller no longer owns the organization.
    expect(results.map((response) => response.status).sort()).toEqual([200, 403]);
    const winner = results[0]!.status === 200 ? first : second;
    const organization = await json(await server.request(`/organizations/${id}`, { token: winner.token }));
    expect(organization.body.ownerId).toBe(winner.user.id);
  });
});
