import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "motd-admin@example.com", password: "motd admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());
const { must, call } = jsonApi(() => server);

type Announcement = { id: string; status: string; recipientCount: number; acknowledgedCount: number; cancellationReason: string | null; cancelledAt: string | null };
const announce = async (targets: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  (await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: { title: "Downtime", message: "Dome maintenance", severity: "warning", deliveryType: "message", targets, ...extra } }, 201)) as Announcement;
const pendingIds = async (account: Account) => ((await must("/api/v1/user/motd/pending", { token: account.token })).items as Array<{ id: string }>).map((item) => item.id);

describe("system announcement lifecycle", () => {
  it("selected users: pending until each acknowledges, then acknowledged", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id, bob.id] } });
    expect(created).toMatchObject({ status: "active", recipientCount: 2, acknowledgedCount: 0, cancellationReason: null });
    expect(await pendingIds(alice)).toContain(created.id);
    const first = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    const again = await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }, 200);
    expect(again.acknowledgedAt).toBe(first.acknowledgedAt);
    expect(await pendingIds(alice)).not.toContain(created.id);
    await must(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: bob.token }, 200);
    const list = await must("/api/v1/system/motd?status=acknowledged", { token: adminToken });
    expect(list.items.find((item: Announcement) => item.id === created.id)).toMatchObject({ status: "acknowledged", acknowledgedCount: 2 });
    const recipients = await must(`/api/v1/system/motd/${created.id}/recipients?sort=email`, { token: adminToken });
    expect(recipients.counts).toMatchObject({ total: 2, acknowledged: 2, pending: 0 });
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "late" } }), 409, "INVALID_TRANSITION");
  });

  it("cancels with a reason only, and a stranger cannot acknowledge", async () => {
    const alice = await createAccount(server);
    const stranger = await createAccount(server);
    const created = await announce({ users: { ids: [alice.id] } });
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: stranger.token }), 404, "NOT_FOUND");
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken }), 400, "REASON_REQUIRED");
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "   " } }), 400, "REASON_REQUIRED");
    const cancelled = await must(`/api/v1/system/motd/${created.id}`, { method: "DELETE", token: adminToken, json: { reason: "Wrong date" } }, 200);
    expect(cancelled).toMatchObject({ status: "cancelled", cancellationReason: "Wrong date", cancelledAt: expect.any(String) });
    await expectProblem(await server.request(`/api/v1/system/motd/${created.id}/acknowledge`, { method: "POST", token: alice.token }), 409, "INVALID_TRANSITION");
    const recipients = await must(`/api/v1/system/motd/${created.id}/recipients`, { token: adminToken });
    expect(recipients.cancellation).toMatchObject({ reason: "Wrong date" });
    expect((await call(`/api/v1/system/motd`, { token: alice.token })).status).toBe(403);
  });

  it("refuses unknown ids, listing them", async () => {
    const problem = await expectProblem(await server.request("/api/v1/system/motd", { method: "POST", token: adminToken, json: { title: "x", message: "y", severity: "info", deliveryType: "message", targets: { users: { ids: ["usr_nope"] }, projects: { ids: ["prj_gone"] } } } }), 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([
      { path: "targets.users.ids.0", message: expect.stringContaining("usr_nope") },
      { path: "targets.projects.ids.0", message: expect.stringContaining("prj_gone") },
    ]);
  });
});
