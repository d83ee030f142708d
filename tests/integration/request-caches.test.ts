import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession, logout, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

// Two servers over one database, each with its own caches and LISTEN connection, as two
// replicas would be. The cache lifetime is an hour, so only invalidation can explain a change
// seen by the other server.
const ADMIN = { email: "caches-admin@example.com", password: "caches admin password" };
const HOUR = String(3_600_000);
let serverA: TestServer;
let serverB: TestServer;
let adminToken: string;

beforeAll(async () => {
  serverA = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", REQUEST_CACHE_TTL_MS: HOUR, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  serverB = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", REQUEST_CACHE_TTL_MS: HOUR, DATABASE_URL: serverA.databaseUrl });
  adminToken = (await loginSession(serverA, ADMIN)).token;
});
afterAll(async () => {
  await serverB?.stop();
  await serverA?.stop();
});

const statusOn = async (server: TestServer, path: string, token: string) => (await server.request(path, { token })).status;
const pendingIds = async (server: TestServer, token: string) =>
  ((await (await server.request("/api/v1/user/motd/pending", { token })).json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);

describe("request caches across server processes", () => {
  it("a logout on one server refuses the token on the other", async () => {
    const user = await createAccount(serverA);
    const session = await loginSession(serverA, user);
    expect(await statusOn(serverB, "/api/v1/auth/me", session.token)).toBe(200);
    await logout(serverA, session.token);
    expect(await statusOn(serverA, "/api/v1/auth/me", session.token)).toBe(401);
    await until("server B to refuse the ended session", async () => (await statusOn(serverB, "/api/v1/auth/me", session.token)) === 401);
  });

  it("a revoked API key stops working on the other server", async () => {
    const user = await createAccount(serverA);
    const key = await createApiKey(serverA, user.token);
    expect(await statusOn(serverB, "/api/v1/auth/me", key.key)).toBe(200);
    expect((await serverA.request(`/api/v1/user/api-keys/${key.id}`, { method: "DELETE", token: user.token })).status).toBe(204);
    await until("server B to refuse the revoked key", async () => (await statusOn(serverB, "/api/v1/auth/me", key.key)) === 401);
  });

  it("a profile change on one server shows on the other", async () => {
    const user = await createAccount(serverA, { name: "Original Name" });
    expect(((await (await serverB.request("/api/v1/auth/me", { token: user.token })).json()) as { name: string }).name).toBe("Original Name");
    expect((await serverA.request("/api/v1/user/profile", { method: "PUT", token: user.token, json: { name: "Renamed Astronomer" } })).status).toBe(200);
    await until("server B to show the new name", async () => ((await (await serverB.request("/api/v1/auth/me", { token: user.token })).json()) as { name: string }).name === "Renamed Astronomer");
  });

  it("pending announcements follow creation, acknowledgment and cancellation made elsewhere", async () => {
    const user = await createAccount(serverA);
    expect(await pendingIds(serverB, user.token)).toEqual([]);
    const create = async () => {
      const response = await serverA.request("/api/v1/system/motd", {
        method: "POST",
        token: adminToken,
        json: { title: "Cache check", message: "m", severity: "info", deliveryType: "message", targets: { users: { ids: [user.id] } } },
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const first = await create();
    await until("server B to list the new announcement", async () => (await pendingIds(serverB, user.token)).includes(first));
    expect((await serverA.request(`/api/v1/system/motd/${first}/acknowledge`, { method: "POST", token: user.token })).status).toBe(200);
    await until("server B to drop the acknowledged announcement", async () => !(await pendingIds(serverB, user.token)).includes(first));
    const second = await create();
    await until("server B to list the second announcement", async () => (await pendingIds(serverB, user.token)).includes(second));
    expect((await serverA.request(`/api/v1/system/motd/${second}`, { method: "DELETE", token: adminToken, json: { reason: "sent by mistake" } })).status).toBe(200);
    await until("server B to drop the cancelled announcement", async () => (await pendingIds(serverB, user.token)).length === 0);
  });
});
