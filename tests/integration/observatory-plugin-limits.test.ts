import { randomUUID } from "node:crypto";
import type { PluginMessageBody } from "@meridian/rules/observatory-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "plugin-limits-admin@example.com", password: "plugin limits admin password" };
const MESSAGES_PER_SECOND = 20;
const QUEUE_LIMIT = 40;
let server: TestServer;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN, {
    MERIDIAN_ROLE: "all",
    PLUGIN_MESSAGES_PER_SECOND: String(MESSAGES_PER_SECOND),
    PLUGIN_QUEUE_LIMIT: String(QUEUE_LIMIT),
  }));
});
afterAll(async () => {
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

async function observatoryWithKey(owner: Account) {
  const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: `Scope ${randomUUID().slice(0, 6)}` } }, 201)) as {
    id: string;
  };
  const key = (await must(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: owner.token, json: { name: "plugin" } }, 201)) as {
    key: string;
  };
  return { observatoryId: observatory.id, key: key.key };
}

async function helloed(key: string) {
  const socket = await openPluginSocket(server.url, key);
  sockets.push(socket);
  expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
  return socket;
}

const history = async (owner: Account, observatoryId: string) =>
  (
    (await must(`/observatories/${observatoryId}/history?limit=200`, { token: owner.token })) as {
      items: Array<{ type: string; data: Record<string, unknown> }>;
    }
  ).items;

/** Safety reports that each change something, so each one handled is a transaction and a history entry. */
const safetyFlip = (index: number): PluginMessageBody => ({ type: "safety", safe: index % 2 === 1, reason: index % 2 === 1 ? undefined : "dome fault" });

describe("limits on an observatory plugin's connection", () => {
  it("answers messages beyond the rate with an error naming the limit, handles the others, and keeps the connection", async () => {
    const owner = await createAccount(server);
    const { key } = await observatoryWithKey(owner);
    const socket = await helloed(key);
    const ids = Array.from({ length: 30 }, () => socket.send({ type: "heartbeat" }));
    const replies = await Promise.all(ids.map((id) => socket.replyTo(id)));
    const refused = replies.filter((reply) => reply.type === "error");
    expect(refused.length).toBeGreaterThan(0);
    expect(replies.filter((reply) => reply.type === "ack").length).toBeLessThanOrEqual(MESSAGES_PER_SECOND + 1);
    for (const reply of refused) {
      expect(reply.code).toBe("RATE_LIMITED");
      // The bucket refills each second, so that is when to send it again.
      expect(reply.retryAfter).toBe(1);
      expect(reply.message).toContain(`${MESSAGES_PER_SECOND} messages a second`);
    }
    // Replies keep the order of the messages, refused or not.
    expect(replies.map((reply) => reply.id)).toEqual(ids);
    expect(socket.client.ws.readyState).toBe(WebSocket.OPEN);
    // Once the second has passed, the same connection is served again.
    await until("a heartbeat answered with ack", async () => (await socket.ask({ type: "heartbeat" })).type === "ack");
  });

  it("closes with 4429 a connection that leaves more messages waiting than the queue holds, and handles none of the rest", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(owner);
    const socket = await helloed(key);
    for (let index = 0; index < 50_000 && socket.client.ws.readyState === WebSocket.OPEN; index += 1) socket.send(safetyFlip(index));
    expect(await socket.closed).toBe(4429);
    await until("the observatory offline", async () => (await history(owner, observatoryId)).some((entry) => entry.type === "offline"));
    const entries = await history(owner, observatoryId);
    expect(entries[0]).toMatchObject({ type: "offline", data: { reason: "too_many_messages" } });
    expect(entries.filter((entry) => entry.type === "safety_event").length).toBeLessThanOrEqual(QUEUE_LIMIT);
    const observatory = (await must(`/observatories/${observatoryId}`, { token: owner.token })) as { connection: { online: boolean } };
    expect(observatory.connection.online).toBe(false);
  });

  it("stops handling a connection's waiting messages once its socket is gone", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(owner);
    const socket = await helloed(key);
    // Within the rate and the queue: all would be handled if the socket stayed.
    for (let index = 0; index < MESSAGES_PER_SECOND; index += 1) socket.send(safetyFlip(index));
    socket.client.ws.terminate();
    await until("the observatory offline", async () => (await history(owner, observatoryId)).some((entry) => entry.type === "offline"));
    const entries = await history(owner, observatoryId);
    expect(entries[0]).toMatchObject({ type: "offline", data: { reason: "connection_closed" } });
    expect(entries.filter((entry) => entry.type === "safety_event").length).toBeLessThan(MESSAGES_PER_SECOND);
  });
});
