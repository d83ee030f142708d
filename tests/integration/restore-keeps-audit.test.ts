import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

// The audit log is append-only: a restore does not roll it back, and is recorded in it. Nor does it give
// back access taken away since the backup (as a revoked key stays revoked): a disabled account, a removed role.
const ADMIN = { email: "restore-audit-admin@example.com", password: "restore audit admin password" };
let server: TestServer;
let adminToken: string;
let owner: Account;
let member: Account;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "all" }));
  [owner, member] = await Promise.all([createAccount(server), createAccount(server)]);
});
afterAll(() => server?.stop());
const { must, jobToEnd, createOrganization, addOrganizationMember } = jsonApi(() => server);

interface Entry {
  action: string;
  target: { id: string };
}
const auditActions = async () => ((await must("/api/v1/admin/audit?limit=200", { token: adminToken }, 200)) as { items: Entry[] }).items;

describe("a restore and the audit log", () => {
  it("keeps the entries written after the backup, and records the restore itself", async () => {
    const organization = await createOrganization(owner);
    const backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
    expect(await jobToEnd<{ status: string }>(backup.jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });

    // After the backup: a membership change, audited.
    await addOrganizationMember(owner, organization.id, member);
    const before = await auditActions();
    const added = before.find((entry) => entry.action === "organization.member_added" && entry.target.id === member.id);
    expect(added).toBeDefined();

    const { jobId } = (await must(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    expect(await jobToEnd<{ status: string }>(jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });

    // The membership is gone with the restore; the record of it stays, and the restore is on record too.
    const members = (await must(`/organizations/${organization.id}/members`, { token: owner.token }, 200)) as { items: Array<{ userId: string }> };
    expect(members.items.map((item) => item.userId)).not.toContain(member.id);
    const after = await auditActions();
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after.find((entry) => entry.action === "backup.restored" && entry.target.id === backup.id)).toBeDefined();
  }, 240_000);
});

describe("a restore and access taken away since the backup", () => {
  it("keeps a disabled account disabled, its API key refused, and a removed server admin role removed", async () => {
    const [user, demoted] = await Promise.all([createAccount(server), createAccount(server)]);
    const key = await createApiKey(server, user.token, "kept from before the backup");
    await must(`/api/v1/admin/users/${demoted.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    const demotedKey = await createApiKey(server, demoted.token, "an admin's key");
    expect((await server.request("/api/v1/admin/backups", { token: demotedKey.key })).status).toBe(200);

    const backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
    expect(await jobToEnd<{ status: string }>(backup.jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });

    // After the backup: the account disabled, the admin demoted.
    await must(`/api/v1/admin/users/${user.id}`, { method: "PUT", token: adminToken, json: { disabled: true } }, 200);
    await must(`/api/v1/admin/users/${demoted.id}`, { method: "PUT", token: adminToken, json: { roles: [] } }, 200);
    expect((await server.request("/api/v1/auth/me", { token: key.key })).status).not.toBe(200);
    expect((await server.request("/api/v1/admin/backups", { token: demotedKey.key })).status).toBe(403);

    const { jobId } = (await must(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST", token: adminToken }, 202)) as { jobId: string };
    expect(await jobToEnd<{ status: string }>(jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });

    expect((await server.request("/api/v1/auth/me", { token: key.key })).status).not.toBe(200);
    expect((await server.request("/api/v1/admin/backups", { token: demotedKey.key })).status).toBe(403);
    const users = (await must("/api/v1/admin/users?limit=200", { token: adminToken }, 200)) as {
      items: Array<{ id: string; disabled?: boolean; roles: string[] }>;
    };
    expect(users.items.find((item) => item.id === user.id)).toMatchObject({ disabled: true });
    expect(users.items.find((item) => item.id === demoted.id)).toMatchObject({ roles: [] });
  }, 240_000);
});

// Kept last: it leaves ADMIN demoted.
describe("a restore and the server's administrators", () => {
  it("never leaves the server without an enabled administrator: today's come through when the backup's are all demoted", async () => {
    const backup = (await must("/api/v1/admin/backups", { method: "POST", token: adminToken }, 202)) as { id: string; jobId: string };
    expect(await jobToEnd<{ status: string }>(backup.jobId, adminToken, 120_000)).toMatchObject({ status: "completed" });

    // After the backup: an account made an administrator, which then demotes the only administrator the backup knows.
    const newcomer = await createAccount(server);
    await must(`/api/v1/admin/users/${newcomer.id}`, { method: "PUT", token: adminToken, json: { roles: ["serverAdmin"] } }, 200);
    const adminId = (await must("/api/v1/auth/me", { token: adminToken }, 200)).id as string;
    await must(`/api/v1/admin/users/${adminId}`, { method: "PUT", token: newcomer.token, json: { roles: [] } }, 200);

    const { jobId } = (await must(`/api/v1/admin/backups/${backup.id}/restore`, { method: "POST", token: newcomer.token }, 202)) as { jobId: string };
    // The newcomer's session is not in the backup: each look signs in again (refused while the restore holds maintenance).
    const job = await until(
      "the restore to end",
      async () => {
        const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: newcomer.email, password: newcomer.password } });
        if (login.status !== 200) return undefined;
        const { token } = (await login.json()) as { token: string };
        const seen = await server.request(`/api/v1/admin/jobs/${jobId}`, { token });
        if (seen.status !== 200) return undefined;
        const body = (await seen.json()) as { status: string };
        return body.status === "completed" || body.status === "failed" ? { ...body, token } : undefined;
      },
      { timeoutMs: 120_000 },
    );
    expect(job.status).toBe("completed");
    expect((await server.request("/api/v1/admin/backups", { token: job.token })).status).toBe(200);
    // The demotion made since the backup stays.
    const users = (await must("/api/v1/admin/users?limit=200", { token: job.token }, 200)) as { items: Array<{ id: string; roles: string[] }> };
    expect(users.items.find((item) => item.id === adminId)).toMatchObject({ roles: [] });
    expect(users.items.find((item) => item.id === newcomer.id)).toMatchObject({ roles: ["serverAdmin"] });
  }, 240_000);
});
