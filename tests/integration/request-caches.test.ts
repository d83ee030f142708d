import { describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession, logout } from "../support/auth-suite";
import { useReplicas } from "../support/replicas";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "caches-admin@example.com", password: "caches admin password" };
const replicas = useReplicas(ADMIN);

const statusOn = async (server: TestServer, path: string, token: string) => (await server.request(path, { token })).status;
const pendingIds = async (server: TestServer, token: string) =>
  ((await (await server.request("/api/v1/user/motd/pending", { token })).json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);

describe("request caches across server processes", () => {
  it("a logout on one server refuses the token on the other", async () => {
    const user = await createAccount(replicas.serverA);
    const session = await loginSession(replicas.serverA, user);
    expect(await statusOn(replicas.serverB, "/api/v1/auth/me", session.token)).toBe(200);
    await logout(replicas.serverA, session.token);
    expect(await statusOn(replicas.serverA, "/api/v1/auth/me", session.token)).toBe(401);
    await until("server B to refuse the ended session", async () => (await statusOn(replicas.serverB, "/api/v1/auth/me", session.token)) === 401);
  });

  it("a revoked API key stops working on the other server", async () => {
    const user = await createAccount(replicas.serverA);
    const key = await createApiKey(replicas.serverA, user.token);
    expect(await statusOn(replicas.serverB, "/api/v1/auth/me", key.key)).toBe(200);
    expect((await replicas.serverA.request(`/api/v1/user/api-keys/${key.id}`, { method: "DELETE", token: user.token })).status).toBe(204);
    await until("server B to refuse the revoked key", async () => (await statusOn(replicas.serverB, "/api/v1/auth/me", key.key)) === 401);
  });

  it("a profile change on one server shows on the other", async () => {
    const user = await createAccount(replicas.serverA, { name: "Original Name" });
    expect(((await (await replicas.serverB.request("/api/v1/auth/me", { token: user.token })).json()) as { name: string }).name).toBe("Original Name");
    expect((await replicas.serverA.request("/api/v1/user/profile", { method: "PUT", token: user.token, json: { name: "Renamed Astronomer" } })).status).toBe(
      200,
    );
    await until(
      "server B to show the new name",
      async () => ((await (await replicas.serverB.request("/api/v1/auth/me", { token: user.token })).json()) as { name: string }).name === "Renamed Astronomer",
    );
  });

  it("pending announcements follow creation, acknowledgment and cancellation made elsewhere", async () => {
    const user = await createAccount(replicas.serverA);
    expect(await pendingIds(replicas.serverB, user.token)).toEqual([]);
    const create = async () => {
      const response = await replicas.serverA.request("/api/v1/system/motd", {
        method: "POST",
        token: replicas.adminToken,
        json: { title: "Cache check", message: "m", severity: "info", deliveryType: "message", targets: { users: { ids: [user.id] } } },
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const first = await create();
    await until("server B to list the new announcement", async () => (await pendingIds(replicas.serverB, user.token)).includes(first));
    expect((await replicas.serverA.request(`/api/v1/system/motd/${first}/acknowledge`, { method: "POST", token: user.token })).status).toBe(200);
    await until("server B to drop the acknowledged announcement", async () => !(await pendingIds(replicas.serverB, user.token)).includes(first));
    const second = await create();
    await until("server B to list the second announcement", async () => (await pendingIds(replicas.serverB, user.token)).includes(second));
    expect(
      (await replicas.serverA.request(`/api/v1/system/motd/${second}`, { method: "DELETE", token: replicas.adminToken, json: { reason: "sent by mistake" } }))
        .status,
    ).toBe(200);
    await until("server B to drop the cancelled announcement", async () => (await pendingIds(replicas.serverB, user.token)).length === 0);
  });
});
