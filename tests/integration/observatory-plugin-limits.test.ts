import { randomUUID } from "node:crypto";
import type { PluginMessageBody } from "@meridian/rules/observatory-protocol";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observatoryWithKey } from "../support/observatory-keys";
import { openPluginSocket, type PluginReply, type PluginSocket } from "../support/plugin-socket";
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
const { must, call } = jsonApi(() => server);

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
    const { key } = await observatoryWithKey(must, owner);
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
    const { observatoryId, key } = await observatoryWithKey(must, owner);
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
    const { observatoryId, key } = await observatoryWithKey(must, owner);
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

type ObservatoryRead = { connection: { online: boolean; pluginVersion?: string }; conditions?: object };
const observatoryOf = async (owner: Account, observatoryId: string) =>
  (await must(`/observatories/${observatoryId}`, { token: owner.token })) as ObservatoryRead;

async function storedReports(observatoryId: string) {
  const [row] = await server.server.runtime.deps.db.execute<{ system_info: unknown; equipment: unknown }>(
    sql`select doc->'systemInfo' as system_info, doc->'equipment' as equipment from observatories where id = ${observatoryId}`,
  );
  return row!;
}

/** Sends JSON text as written (so an escape such as a lone surrogate reaches the server as it is) and waits for its reply. */
async function askRaw(socket: PluginSocket, message: string): Promise<PluginReply> {
  const id = `raw-${randomUUID()}`;
  socket.client.ws.send(`{"id":"${id}",${message.slice(1)}`);
  return socket.replyTo(id);
}

describe("what a plugin sends, held to what REST takes and what the database can store", () => {
  it("refuses a safety or weather reason with a control character (NUL, BEL) as REST refuses a status reason, and records nothing", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await helloed(key);
    const entries = (await history(owner, observatoryId)).length;
    for (const message of [
      { type: "safety", safe: false, reason: "dome\u0000fault" },
      { type: "weather", hold: true, reason: "clouds\u0007" },
    ] as const) {
      const reply = await socket.ask(message);
      expect(reply).toMatchObject({ type: "error", code: "VALIDATION_FAILED", message: "reason: must not contain control characters" });
    }
    expect((await history(owner, observatoryId)).length).toBe(entries);
    expect((await observatoryOf(owner, observatoryId)).conditions).toBeUndefined();
    // The same reports in words are taken.
    expect(await socket.ask({ type: "weather", hold: true, reason: "clouds" })).toMatchObject({ type: "ack" });
  });

  it("refuses an observation_status whose observationId or reason holds NUL (VALIDATION_FAILED, not INTERNAL); the observation stays as it was", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const project = (await must("/projects", { method: "POST", token: owner.token, json: { name: `Survey ${randomUUID().slice(0, 6)}` } }, 201)) as {
      id: string;
    };
    const socket = await helloed(key);
    const target = { name: "Deneb", ra: 310.36, dec: 45.28, exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] };
    const observation = (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "Deneb", projectId: project.id, observatoryId, targets: [target] } },
      201,
    )) as { id: string };
    await socket.client.waitFor((message) => message.type === "assign", "the assignment", 30_000);

    const badId = await socket.ask({ type: "observation_status", observationId: "obs\u0000x", status: "in_progress" });
    expect(badId).toMatchObject({ type: "error", code: "VALIDATION_FAILED", message: "observationId: must not contain control characters" });
    // REST refuses the reason as invalid; so does the socket.
    const rest = await call(`/observations/${observation.id}/status`, {
      method: "POST",
      token: owner.token,
      json: { status: "in_progress", reason: "started\u0000now" },
    });
    expect(rest.status).toBe(400);
    const badReason = await socket.ask({ type: "observation_status", observationId: observation.id, status: "in_progress", reason: "started\u0000now" });
    expect(badReason).toMatchObject({ type: "error", code: "VALIDATION_FAILED", message: "reason: must not contain control characters" });
    const read = (await must(`/observations/${observation.id}`, { token: owner.token })) as { status: string; statusReason?: string | null };
    expect(read.status).toBe("assigned");
    expect(read.statusReason ?? null).toBeNull();
  });

  it("refuses a report holding a lone surrogate or nested deeper than 32 levels with VALIDATION_FAILED, stores nothing, and keeps serving", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await openPluginSocket(server.url, key);
    sockets.push(socket);
    expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: { os: "linux" }, equipment: { mount: "A" } })).toMatchObject({
      type: "ack",
    });
    const entries = (await history(owner, observatoryId)).length;

    // jsonb refuses a lone surrogate, in a text or in a key.
    for (const systemInfo of ['{"os":"\\ud800"}', '{"\\udc00":"linux"}']) {
      const reply = await askRaw(socket, `{"type":"config","systemInfo":${systemInfo}}`);
      expect(reply).toMatchObject({ type: "error", code: "VALIDATION_FAILED" });
      expect(reply.message).toBe("systemInfo holds a lone surrogate (half of a UTF-16 pair), which cannot be stored. Nothing was stored.");
    }
    // 20,000 levels in a few dozen KiB: refused before anything recurses through it.
    const depth = 20_000;
    const deep = await askRaw(socket, `{"type":"config","equipment":{"mount":${"[".repeat(depth)}${"]".repeat(depth)}}}`);
    expect(deep).toMatchObject({ type: "error", code: "VALIDATION_FAILED", message: "equipment nests deeper than 32 levels. Nothing was stored." });
    // 32 levels, the report itself the first, are taken; 33 are not.
    const nested = (levels: number): Record<string, unknown> => (levels === 1 ? {} : { next: nested(levels - 1) });
    expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", equipment: nested(33) })).toMatchObject({ type: "error", code: "VALIDATION_FAILED" });

    expect(await storedReports(observatoryId)).toEqual({ system_info: { os: "linux" }, equipment: { mount: "A" } });
    expect((await history(owner, observatoryId)).length).toBe(entries);
    expect(await socket.ask({ type: "config", equipment: nested(32) })).toMatchObject({ type: "ack" });
    expect((await storedReports(observatoryId)).equipment).toEqual(nested(32));
  });

  it("refuses a pluginVersion longer than 64 characters, and the observatory stays offline with no version stored", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await openPluginSocket(server.url, key);
    sockets.push(socket);
    for (const pluginVersion of [`4.${"0".repeat(63)}`, `4.${"0".repeat(200_000)}`]) {
      const reply = await socket.ask({ type: "hello", pluginVersion });
      expect(reply).toMatchObject({ type: "error", code: "VALIDATION_FAILED" });
      expect(reply.message).toContain("pluginVersion");
    }
    const read = await observatoryOf(owner, observatoryId);
    expect(read.connection.online).toBe(false);
    expect(read.connection.pluginVersion).toBeUndefined();
    expect((await history(owner, observatoryId)).map((entry) => entry.type)).not.toContain("online");
  });

  it("answers a report of any size up to 1 MiB with PAYLOAD_TOO_LARGE and its id, stores nothing and keeps serving; past 1 MiB it closes (1009)", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await helloed(key);
    const entries = (await history(owner, observatoryId)).length;
    // Over the 64 KiB a report may hold, and over what a message is handled at (256 KiB): the contract's answer all the same.
    for (const kibibytes of [300, 1000]) {
      const reply = await socket.ask({ type: "config", systemInfo: { dump: "x".repeat(kibibytes * 1024) } });
      expect(reply).toMatchObject({ type: "error", code: "PAYLOAD_TOO_LARGE" });
    }
    expect(await storedReports(observatoryId)).toEqual({ system_info: null, equipment: null });
    expect((await history(owner, observatoryId)).length).toBe(entries);
    expect(await socket.ask({ type: "heartbeat" })).toMatchObject({ type: "ack" });

    socket.send({ type: "config", systemInfo: { dump: "x".repeat(1024 * 1024) } });
    expect(await socket.closed).toBe(1009);
  });
});
