import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { holdRows, lockWaiters } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { connectWebSocket } from "../support/ws-client";

/**
 * A key's first use stamps its `lastUsedAt`. That stamp must never write back a key as it was read
 * before a revocation that committed in between: the revocation would be undone and the key work
 * again. Each case holds the key's row so that the stamp and the revocation queue behind each other,
 * the stamp first, as they would on a busy server.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

/** Holds the key's row; `use` reaches it first (to stamp the key), then `revoke`; then the hold ends. */
async function revokeWhileStamping(table: "api_keys" | "observatory_keys", keyId: string, use: () => Promise<unknown>, revoke: () => Promise<unknown>) {
  const hold = await holdRows(server.databaseUrl, `select id from ${table} where id = '${keyId}' for update`);
  try {
    const used = use();
    await until("the key's first use to wait for its row", async () => (await hold.waiters()) >= 1);
    const revoked = revoke();
    // Queued behind the first use, it waits on that backend rather than on the hold itself.
    await until("the revocation to wait behind it", async () => (await lockWaiters(server.server.runtime.deps.sql)) >= 2);
    await hold.release();
    await Promise.all([used, revoked]);
  } finally {
    await hold.release();
  }
}

describe("the last-used stamp of a key", () => {
  it("leaves a user's API key revoked when the revocation commits while the key's first use stamps it", async () => {
    const owner = await createAccount(server);
    const key = (await must("/api/v1/user/api-keys", { method: "POST", token: owner.token, json: { name: "script" } }, 201)) as { id: string; key: string };

    await revokeWhileStamping(
      "api_keys",
      key.id,
      () => server.request("/api/v1/auth/me", { token: key.key }),
      () => must(`/api/v1/user/api-keys/${key.id}`, { method: "DELETE", token: owner.token }, 204),
    );

    expect((await server.request("/api/v1/auth/me", { token: key.key })).status).toBe(401);
    const listed = (await must("/api/v1/user/api-keys", { token: owner.token }, 200)) as { items: Array<{ id: string }> };
    expect(listed.items.map((item) => item.id)).not.toContain(key.id);
  });

  it("leaves an observatory key revoked when the revocation commits while a plugin's connection stamps it", async () => {
    const owner = await createAccount(server);
    const { observatory, key } = await observingNetwork(must, owner);
    const wsUrl = `${server.url.replace(/^http/, "ws")}/ws/observatory`;
    const connect = () => connectWebSocket(wsUrl, { authorization: `Bearer ${key.key}` });

    await revokeWhileStamping(
      "observatory_keys",
      key.id,
      async () => {
        const attempt = await connect();
        if (attempt.ok) attempt.client.ws.close();
      },
      () => must(`/observatories/${observatory.id}/api-keys/${key.id}`, { method: "DELETE", token: owner.token }, 204),
    );

    const again = await connect();
    if (again.ok) again.client.ws.close();
    expect(again).toMatchObject({ ok: false, status: 401 });
    const listed = (await must(`/observatories/${observatory.id}/api-keys`, { token: owner.token }, 200)) as { items: Array<{ id: string }> };
    expect(listed.items.map((item) => item.id)).not.toContain(key.id);
  });
});
