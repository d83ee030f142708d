import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData, trpcErrorCode } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { openWebSocket } from "../support/ws-client";

const ADMIN = { email: "lifecycle-admin@example.com", password: "lifecycle admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must, createOrganization, addOrganizationMember, createObservatory, addObservatoryOrganization } = jsonApi(() => server);

const createProject = async (owner: Account, json: Record<string, unknown> = { name: "Supernova survey" }) =>
  must("/projects", { method: "POST", token: owner.token, json }, 201);
const addProjectMember = (as: Account, projectId: string, member: Account, role: "admin" | "member") =>
  must(`/projects/${projectId}/members`, { method: "POST", token: as.token, json: { email: member.email, role } }, 201);
const setRole = (token: string, projectId: string, userId: string, role: unknown) =>
  server.request(`/projects/${projectId}/members/${userId}`, { method: "PUT", token, json: { role } });
const archive = (token: string, projectId: string) => must(`/projects/${projectId}`, { method: "PUT", token, json: { status: "archived" } }, 200);

describe("PUT /projects/{id}/members/{userId}", () => {
  it("the owner and project admins change a member's role; the change shows in the list and the audit log", async () => {
    const owner = await createAccount(server);
    const admin = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    await addProjectMember(owner, project.id, admin, "admin");
    await addProjectMember(owner, project.id, member, "member");

    const promoted = await setRole(admin.token, project.id, member.id, "admin");
    expect(promoted.status).toBe(200);
    expect(await promoted.json()).toEqual({ userId: member.id, email: member.email, name: expect.any(String), role: "admin", joinedAt: expect.any(String) });
    expect((await setRole(owner.token, project.id, admin.id, "member")).status).toBe(200);
    const members = await must(`/projects/${project.id}/members`, { token: owner.token }, 200);
    expect(members.items.map((item: { userId: string; role: string }) => [item.userId, item.role])).toEqual([
      [owner.id, "owner"],
      [admin.id, "member"],
      [member.id, "admin"],
    ]);
    // The demoted admin can no longer manage.
    await expectProblem(await setRole(admin.token, project.id, member.id, "member"), 403, "FORBIDDEN");
    const audit = await must(`/api/v1/admin/audit?limit=200`, { token: adminToken }, 200);
    expect(audit.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: "project.member_role_updated",
          actorId: owner.id,
          target: expect.objectContaining({ id: admin.id }),
          before: { role: "admin" },
          after: { role: "member" },
        }),
      ]),
    );
  });

  it(
    "refuses: the owner's role (409 OWNER_ROLE_FIXED), a non-member (404), a bad role (400), a " + "plain member (403), a stranger (404), logged out (401)",
    async () => {
      const owner = await createAccount(server);
      const member = await createAccount(server);
      const stranger = await createAccount(server);
      const project = await createProject(owner);
      await addProjectMember(owner, project.id, member, "member");
      await expectProblem(await setRole(owner.token, project.id, owner.id, "member"), 409, "OWNER_ROLE_FIXED");
      await expectProblem(await setRole(owner.token, project.id, stranger.id, "admin"), 404, "NOT_FOUND");
      for (const role of ["owner", "superuser", null, 3])
        await expectProblem(await setRole(owner.token, project.id, member.id, role), 400, "VALIDATION_FAILED");
      await expectProblem(await setRole(member.token, project.id, member.id, "admin"), 403, "FORBIDDEN");
      await expectProblem(await setRole(stranger.token, project.id, member.id, "admin"), 404, "NOT_FOUND");
      await expectProblem(
        await server.request(`/projects/${project.id}/members/${member.id}`, { method: "PUT", json: { role: "admin" } }),
        401,
        "UNAUTHENTICATED",
      );
      const members = await must(`/projects/${project.id}/members`, { token: owner.token }, 200);
      expect(members.items.find((item: { userId: string }) => item.userId === member.id).role).toBe("member");
    },
  );

  it("tRPC projects.updateMember answers like REST", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    await addProjectMember(owner, project.id, member, "member");
    const response = await server.request("/trpc/projects.updateMember", {
      method: "POST",
      token: owner.token,
      json: { id: project.id, userId: member.id, role: "admin" },
    });
    expect(await trpcData(response)).toMatchObject({ userId: member.id, role: "admin" });
    const refused = await server.request("/trpc/projects.updateMember", {
      method: "POST",
      token: owner.token,
      json: { id: project.id, userId: owner.id, role: "admin" },
    });
    expect(await trpcErrorCode(refused)).toBe("OWNER_ROLE_FIXED");
  });
});

describe("DELETE /projects/{id}", () => {
  it("deletes an archived project with its memberships; it is gone for everyone", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    await addProjectMember(owner, project.id, member, "admin");
    await expectProblem(await server.request(`/projects/${project.id}`, { method: "DELETE", token: owner.token }), 409, "PROJECT_NOT_ARCHIVED");
    await archive(owner.token, project.id);
    expect((await server.request(`/projects/${project.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    await expectProblem(await server.request(`/projects/${project.id}`, { token: owner.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/projects/${project.id}`, { method: "DELETE", token: owner.token }), 404, "NOT_FOUND");
    expect((await must("/projects", { token: member.token }, 200)).items).toEqual([]);
    const audit = await must(`/api/v1/admin/audit?limit=200`, { token: adminToken }, 200);
    expect(audit.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: "project.deleted", actorId: owner.id, target: expect.objectContaining({ id: project.id }) })]),
    );
  });

  it(
    "only the owner or a server admin: a project admin gets 403, a stranger 404, logged out " + "401; the message names the status while not archived",
    async () => {
      const owner = await createAccount(server);
      const admin = await createAccount(server);
      const stranger = await createAccount(server);
      const project = await createProject(owner);
      await addProjectMember(owner, project.id, admin, "admin");
      const notArchived = await expectProblem(
        await server.request(`/projects/${project.id}`, { method: "DELETE", token: owner.token }),
        409,
        "PROJECT_NOT_ARCHIVED",
      );
      expect(notArchived.detail).toContain("active");
      await archive(owner.token, project.id);
      await expectProblem(await server.request(`/projects/${project.id}`, { method: "DELETE", token: admin.token }), 403, "FORBIDDEN");
      await expectProblem(await server.request(`/projects/${project.id}`, { method: "DELETE", token: stranger.token }), 404, "NOT_FOUND");
      await expectProblem(await server.request(`/projects/${project.id}`, { method: "DELETE" }), 401, "UNAUTHENTICATED");
      await must(`/projects/${project.id}`, { token: owner.token }, 200);
      expect((await server.request(`/projects/${project.id}`, { method: "DELETE", token: adminToken })).status).toBe(204);
    },
  );

  it("cancels the project's active announcements: pending for nobody, cancelled with the reason", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const project = await createProject(owner);
    await addProjectMember(owner, project.id, member, "member");
    const announcement = await must(
      `/projects/${project.id}/motd`,
      { method: "POST", token: owner.token, json: { title: "Dome closed", message: "Weather", severity: "info", deliveryType: "message" } },
      201,
    );
    expect((await must("/api/v1/user/motd/pending", { token: member.token }, 200)).items.map((item: { id: string }) => item.id)).toContain(announcement.id);
    await archive(owner.token, project.id);
    await must(`/projects/${project.id}`, { method: "DELETE", token: owner.token }, 204);
    expect((await must("/api/v1/user/motd/pending", { token: member.token }, 200)).items).toEqual([]);
    const managed = await must("/api/v1/user/motd/managed?scope=project&limit=200", { token: adminToken }, 200);
    expect(managed.items.find((item: { id: string }) => item.id === announcement.id)).toMatchObject({
      status: "cancelled",
      cancellationReason: "The project Supernova survey was deleted.",
    });
  });

  it("tRPC projects.delete answers like REST", async () => {
    const owner = await createAccount(server);
    const project = await createProject(owner);
    const refused = await server.request("/trpc/projects.delete", { method: "POST", token: owner.token, json: { id: project.id } });
    expect(await trpcErrorCode(refused)).toBe("PROJECT_NOT_ARCHIVED");
    await archive(owner.token, project.id);
    expect((await server.request("/trpc/projects.delete", { method: "POST", token: owner.token, json: { id: project.id } })).status).toBe(200);
  });
});

describe("DELETE /organizations/{id}", () => {
  it("refuses with 409 ORGANIZATION_NOT_EMPTY naming the observatories and projects it owns, then deletes once they are gone", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Busy Org" });
    const observatory = await createObservatory(owner, { name: "Kitt Peak", organizationId: organization.id });
    const project = await createProject(owner, { name: "Comet watch", organizationId: organization.id });

    const blocked = await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token }),
      409,
      "ORGANIZATION_NOT_EMPTY",
    );
    expect(blocked.detail).toContain("1 observatory (Kitt Peak)");
    expect(blocked.detail).toContain("1 project (Comet watch)");

    await archive(owner.token, project.id);
    await must(`/projects/${project.id}`, { method: "DELETE", token: owner.token }, 204);
    const stillBlocked = await expectProblem(
      await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token }),
      409,
      "ORGANIZATION_NOT_EMPTY",
    );
    expect(stillBlocked.detail).not.toContain("project");

    // Hand the observatory to a user (a member of it first), then the organization is empty.
    const keeper = await createAccount(server);
    await must(`/observatories/${observatory.id}/members`, { method: "POST", token: owner.token, json: { email: keeper.email } }, 201);
    await must(`/observatories/${observatory.id}/transfer-ownership`, { method: "POST", token: owner.token, json: { kind: "user", id: keeper.id } }, 200);
    expect((await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    await expectProblem(await server.request(`/organizations/${organization.id}`, { token: owner.token }), 404, "NOT_FOUND");

    // Its membership of the observatory it used to own ended, and the history says so.
    const members = await must(`/observatories/${observatory.id}/members`, { token: keeper.token }, 200);
    expect(members.organizations).toEqual([]);
    const history = await must(`/observatories/${observatory.id}/history`, { token: keeper.token }, 200);
    expect(history.items[0]).toMatchObject({
      type: "organization_removed",
      actorId: owner.id,
      data: { organizationId: organization.id, organizationName: "Busy Org", reason: "organization_deleted" },
    });
  });

  it("owner only: a member with every right gets 403, a stranger 404, logged out 401; a server admin may", async () => {
    const owner = await createAccount(server);
    const manager = await createAccount(server);
    const stranger = await createAccount(server);
    const organization = await createOrganization(owner);
    await addOrganizationMember(owner, organization.id, manager, {
      can_manage_members: true,
      can_manage_observatories: true,
      can_manage_projects: true,
      can_manage_storage: true,
    });
    await expectProblem(await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: manager.token }), 403, "FORBIDDEN");
    await expectProblem(await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/organizations/${organization.id}`, { method: "DELETE" }), 401, "UNAUTHENTICATED");
    await must(`/organizations/${organization.id}`, { token: manager.token }, 200);
    expect((await server.request(`/organizations/${organization.id}`, { method: "DELETE", token: adminToken })).status).toBe(204);
    expect((await must("/organizations", { token: manager.token }, 200)).items).toEqual([]);
  });

  it("ends its memberships of other observatories, tells its members over the WebSocket, cancels its announcements and writes the audit log", async () => {
    const owner = await createAccount(server);
    const member = await createAccount(server);
    const observatoryOwner = await createAccount(server);
    const organization = await createOrganization(owner, { name: "Leaving Org" });
    await addOrganizationMember(owner, organization.id, member);
    const observatory = await createObservatory(observatoryOwner, { name: "Lowell" });
    await addObservatoryOrganization(observatoryOwner, observatory.id, organization.id, { can_view: true });
    const announcement = await must(
      `/organizations/${organization.id}/motd`,
      { method: "POST", token: owner.token, json: { title: "Goodbye", message: "We are closing", severity: "warning", deliveryType: "message" } },
      201,
    );

    const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${member.token}` });
    try {
      await must(`/organizations/${organization.id}`, { method: "DELETE", token: owner.token }, 204);
      const removed = await socket.waitFor((message) => message.type === "organization.member_removed", "organization.member_removed");
      expect(removed.data).toEqual({ organizationId: organization.id, organizationName: "Leaving Org" });
      const cancelled = await socket.waitFor((message) => message.type === "announcement.cancelled", "announcement.cancelled");
      expect(cancelled.data).toEqual({ id: announcement.id, reason: "The organization Leaving Org was deleted.", cancelledAt: expect.any(String) });
    } finally {
      await socket.close();
    }
    expect((await must(`/observatories/${observatory.id}/members`, { token: observatoryOwner.token }, 200)).organizations).toEqual([]);
    expect((await must(`/observatories/${observatory.id}/history`, { token: observatoryOwner.token }, 200)).items[0]).toMatchObject({
      type: "organization_removed",
      data: { organizationId: organization.id },
    });
    expect((await must("/api/v1/user/motd/pending", { token: member.token }, 200)).items.map((item: { id: string }) => item.id)).not.toContain(announcement.id);
    const audit = await must(`/api/v1/admin/audit?limit=200`, { token: adminToken }, 200);
    expect(audit.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "organization.deleted", actorId: owner.id, target: expect.objectContaining({ id: organization.id }) }),
      ]),
    );
  });

  it("tRPC organizations.delete answers like REST", async () => {
    const owner = await createAccount(server);
    const organization = await createOrganization(owner);
    await createObservatory(owner, { name: "Blocking", organizationId: organization.id });
    const refused = await server.request("/trpc/organizations.delete", { method: "POST", token: owner.token, json: { id: organization.id } });
    expect(await trpcErrorCode(refused)).toBe("ORGANIZATION_NOT_EMPTY");
    const other = await createOrganization(owner);
    expect((await server.request("/trpc/organizations.delete", { method: "POST", token: owner.token, json: { id: other.id } })).status).toBe(200);
  });
});
