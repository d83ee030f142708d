import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { attachWebSocketHub, defineProtocol, observatoryRouteKey, userProtocol, type Admission, type Refusal, type WebSocketHub } from "@meridian/api";
import { AppError, publishEvent } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { signupUser, startTestServer, type TestServer } from "../support/test-server";
import { connectWebSocket, openWebSocket, type OpenClient } from "../support/ws-client";

/**
 * A protocol in the observatory connection's style ({type, id} messages answered by ack or error),
 * served by the same hub on a second HTTP server over the test server's database: what a new
 * protocol gets from the layer without writing any of it.
 */
const testProtocol = defineProtocol({
  path: "/ws/test",
  maxPayloadBytes: 1024,
  // Test only: the route key comes from the URL. Real protocols authenticate a credential.
  authenticate: async (request): Promise<Admission<{ observatoryId: string }> | Refusal> => {
    const as = new URL(request.url ?? "/", "http://localhost").searchParams.get("observatory");
    if (as === "crash") throw new Error("a bug in authenticate");
    if (as === "no-connection") throw Object.assign(new Error("sorry, too many clients already"), { code: "53300" });
    // A lookup that never settles, as postgres.js can leave one while PostgreSQL refuses it connections.
    if (as === "never") return new Promise<never>(() => undefined);
    return as ? { session: { observatoryId: as }, routeKey: observatoryRouteKey(as) } : { status: 401 };
  },
  messages: z.discriminatedUnion("type", [
    z.object({ type: z.literal("echo"), id: z.string(), text: z.string().max(20) }),
    z.object({ type: z.literal("refuse"), id: z.string() }),
    z.object({ type: z.literal("crash"), id: z.string() }),
  ]),
  handlers: {
    echo: ({ message, session }) => ({ text: message.text, observatoryId: session.observatoryId }),
    refuse: () => {
      throw new AppError("FORBIDDEN", "Not this one");
    },
    crash: () => {
      throw new Error("a bug in a handler");
    },
  },
  welcome: (session) => ({ type: "welcome", data: session }),
  // A close handler whose database work never settles, as a query postgres.js left unsettled would.
  closed: ({ session }) => (session.observatoryId === "closes-never" ? new Promise<never>(() => undefined) : undefined),
  replies: {
    ack: (message, result) => ({ type: "ack", id: message.id, result }),
    error: (message, code, detail) => ({ type: "error", id: typeof message?.id === "string" ? message.id : null, code, message: detail }),
  },
});

let server: TestServer;
let testServer: Server;
let hub: WebSocketHub;
let testUrl: string;
const clients: OpenClient[] = [];
const open = async (url: string, headers: Record<string, string> = {}) => {
  const client = await openWebSocket(url, headers);
  clients.push(client);
  return client;
};
/** What came after the welcome. */
const replies = (client: OpenClient) => client.messages.slice(1) as unknown as Array<Record<string, unknown>>;

beforeAll(async () => {
  // A send limit small beside the flood below (25 MB), and six times what one turn of the hub sends a socket (50 events
  // of 10 KB): a reading client here shares the hub's process and reads between its turns, so on a busy machine whose
  // loopback buffers grow slowly a smaller limit would take the reader for one that does not read (CI runs did, at
  // 64 KiB, and at 1 MiB after 584 of 2,000 events).
  // A short connect timeout: an upgrade whose check never settles is refused a second after it.
  server = await startTestServer({ MERIDIAN_ROLE: "server", WS_SEND_BUFFER_LIMIT_BYTES: String(8 * 1024 * 1024), DATABASE_CONNECT_TIMEOUT_SECONDS: "3" });
  testServer = createServer((_request, response) => response.writeHead(404).end());
  await new Promise<void>((resolve) => testServer.listen(0, "127.0.0.1", resolve));
  hub = await attachWebSocketHub({ server: testServer, deps: server.server.runtime.deps, protocols: [testProtocol] });
  testUrl = `ws://127.0.0.1:${(testServer.address() as AddressInfo).port}/ws/test`;
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await hub?.close();
  await new Promise((resolve) => testServer?.close(resolve));
  await server?.stop();
});

describe("a WebSocket protocol defined with defineProtocol", () => {
  it("acknowledges each valid message with its handler's result", async () => {
    const client = await open(`${testUrl}?observatory=obs_ack`);
    client.ws.send(JSON.stringify({ type: "echo", id: "m1", text: "hello" }));
    expect(await client.waitFor((message) => (message as { id?: string }).id === "m1")).toEqual({
      type: "ack",
      id: "m1",
      result: { text: "hello", observatoryId: "obs_ack" },
    });
  });

  it("answers malformed JSON, an unknown type, invalid data, a refusal and a crashing handler with one error each, and the socket stays usable", async () => {
    const client = await open(`${testUrl}?observatory=obs_errors`);
    const bystander = await open(`${testUrl}?observatory=obs_bystander`);
    client.ws.send("{not json");
    client.ws.send(JSON.stringify({ type: "launch", id: "m2" }));
    client.ws.send(JSON.stringify({ type: "echo", id: "m3", text: "far too long for this protocol" }));
    client.ws.send(JSON.stringify({ type: "refuse", id: "m4" }));
    client.ws.send(JSON.stringify({ type: "crash", id: "m5" }));
    client.ws.send(JSON.stringify({ type: "echo", id: "m6", text: "still here" }));
    await client.waitFor((message) => (message as { id?: string }).id === "m6", "the reply to the last message");
    expect(replies(client).map(({ id, type, code }) => ({ id, type, code }))).toEqual([
      { id: null, type: "error", code: "VALIDATION_FAILED" },
      { id: "m2", type: "error", code: "VALIDATION_FAILED" },
      { id: "m3", type: "error", code: "VALIDATION_FAILED" },
      { id: "m4", type: "error", code: "FORBIDDEN" },
      { id: "m5", type: "error", code: "INTERNAL" },
      { id: "m6", type: "ack", code: undefined },
    ]);
    expect(replies(client)[1]!.message).toBe("Unknown message type");
    expect(replies(client)[4]!.message).not.toContain("a bug in a handler");
    bystander.ws.send(JSON.stringify({ type: "echo", id: "b1", text: "fine" }));
    await bystander.waitFor((message) => (message as { id?: string }).id === "b1");
    expect(replies(bystander)).toHaveLength(1);
  });

  it("closes only the socket that sends more than the protocol's size limit", async () => {
    const greedy = await open(`${testUrl}?observatory=obs_greedy`);
    const other = await open(`${testUrl}?observatory=obs_other`);
    const closed = new Promise<number>((resolve) => greedy.ws.once("close", (code) => resolve(code)));
    greedy.ws.send(JSON.stringify({ type: "echo", id: "big", text: "x".repeat(2048) }));
    expect(await closed).toBe(1009);
    other.ws.send(JSON.stringify({ type: "echo", id: "o1", text: "fine" }));
    await other.waitFor((message) => (message as { id?: string }).id === "o1");
  });

  it("refuses an upgrade its authenticate refuses, and a path no protocol serves", async () => {
    const unauthenticated = await connectWebSocket(testUrl);
    expect(unauthenticated).toMatchObject({ ok: false, status: 401, headers: { "content-type": "application/problem+json", connection: "close" } });
    expect(JSON.parse(unauthenticated.ok ? "" : unauthenticated.body)).toMatchObject({
      type: "https://meridian.dev/problems/unauthenticated",
      status: 401,
      code: "UNAUTHENTICATED",
      instance: "/ws/test",
    });
    const nowhere = await connectWebSocket(testUrl.replace("/ws/test", "/ws/nothing"));
    expect(nowhere).toMatchObject({ ok: false, status: 404 });
    expect(JSON.parse(nowhere.ok ? "" : nowhere.body)).toMatchObject({ code: "NOT_FOUND", detail: "No WebSocket is served at this path" });
  });

  it("answers an upgrade whose authentication failed as a route would: 500 without internals, 503 with Retry-After when the database is full", async () => {
    const crashed = await connectWebSocket(`${testUrl}?observatory=crash`);
    expect(crashed).toMatchObject({ ok: false, status: 500 });
    const body = crashed.ok ? "" : crashed.body;
    expect(JSON.parse(body)).toMatchObject({ code: "INTERNAL", status: 500 });
    expect(body).not.toContain("a bug in authenticate");
    const full = await connectWebSocket(`${testUrl}?observatory=no-connection`);
    expect(full).toMatchObject({ ok: false, status: 503, headers: { "retry-after": "5" } });
    expect(JSON.parse(full.ok ? "" : full.body)).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });

  it("stops with a socket whose close handler never settles: the handler gets the connect timeout and a second", { timeout: 30_000 }, async () => {
    const other = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherHub = await attachWebSocketHub({ server: other, deps: server.server.runtime.deps, protocols: [testProtocol] });
    try {
      const stuck = await open(`ws://127.0.0.1:${(other.address() as AddressInfo).port}/ws/test?observatory=closes-never`);
      const told = new Promise<number>((resolve) => stuck.ws.once("close", (code) => resolve(code)));
      // The test's own timeout is the bound: without one the hub waits for the handler for good.
      await otherHub.close();
      expect(await told).toBe(1001);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("answers 503 with Retry-After an upgrade whose credentials are not checked within the connect timeout, never leaving it hanging", async () => {
    const late = await connectWebSocket(`${testUrl}?observatory=never`);
    expect(late).toMatchObject({ ok: false, status: 503, headers: { "retry-after": "5" } });
    expect(JSON.parse(late.ok ? "" : late.body)).toMatchObject({ code: "SERVICE_UNAVAILABLE", detail: expect.stringMatching(/in time/) });
    // The hub still serves: the next upgrade is checked as ever.
    const after = await connectWebSocket(`${testUrl}?observatory=obs_after_late`);
    expect(after).toMatchObject({ ok: true });
    if (after.ok) after.client.ws.close();
  });
});

describe("routing published events by route key", () => {
  it("delivers an observatory event to that observatory's sockets only, and a user event to no observatory", async () => {
    const target = await open(`${testUrl}?observatory=obs_target`);
    const elsewhere = await open(`${testUrl}?observatory=obs_elsewhere`);
    const user = await signupUser(server);
    const userSocket = await open(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${user.token}` });
    const db = server.server.runtime.deps.db;
    await db.transaction((tx) => publishEvent({ t: { tx }, observatoryIds: ["obs_target"], event: { type: "test.assign", data: { n: 1 } } }));
    await db.transaction((tx) => publishEvent({ t: { tx }, userIds: [user.user.id], event: { type: "test.for_user", data: { n: 2 } } }));
    await db.transaction((tx) => publishEvent({ t: { tx }, observatoryIds: ["obs_target"], event: { type: "test.last", data: { n: 3 } } }));
    await target.waitFor((message) => message.type === "test.last", "the last observatory event");
    await userSocket.waitFor((message) => message.type === "test.for_user", "the user event");
    expect(target.messages.map((message) => message.type)).toEqual(["welcome", "test.assign", "test.last"]);
    // The user's socket and the other observatory heard nothing meant for the observatory; the last
    // event reaching every socket of this process's hub in order shows nothing more is on its way.
    expect(userSocket.messages.map((message) => message.type)).toEqual(["welcome", "test.for_user"]);
    await db.transaction((tx) => publishEvent({ t: { tx }, observatoryIds: ["obs_elsewhere"], event: { type: "test.own", data: {} } }));
    await elsewhere.waitFor((message) => message.type === "test.own");
    expect(elsewhere.messages.map((message) => message.type)).toEqual(["welcome", "test.own"]);
  });

  /**
   * A hub of its own over the test server's database, every `select` of it passed through `onSelect`
   * first (which may count it, or throw instead), with a test-protocol socket of `observatoryId` on it.
   */
  async function withWatchedHub(observatoryId: string, onSelect: () => void, run: (client: OpenClient) => Promise<void>) {
    const { deps } = server.server.runtime;
    const db = new Proxy(deps.db, {
      get(target, property) {
        if (property === "select") onSelect();
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const watched = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => watched.listen(0, "127.0.0.1", resolve));
    const watchedHub = await attachWebSocketHub({ server: watched, deps: { ...deps, db }, protocols: [testProtocol] });
    try {
      await run(await open(`ws://127.0.0.1:${(watched.address() as AddressInfo).port}/ws/test?observatory=${observatoryId}`));
    } finally {
      await watchedHub.close();
      await new Promise((resolve) => watched.close(resolve));
    }
  }

  /** `count` events numbered from 1 in one transaction, each too large (`bytes`) to ride in its notice, so each must be read back. */
  async function publishLarge(observatoryIds: string[], type: string, count: number, bytes = 8_000) {
    const padding = "x".repeat(bytes);
    await server.server.runtime.deps.db.transaction(async (tx) => {
      for (let n = 1; n <= count; n += 1) await publishEvent({ t: { tx }, observatoryIds, event: { type, data: { n, padding } } });
    });
  }

  const numbered = (client: OpenClient, type: string) =>
    client.messages.filter((message) => message.type === type).map((message) => (message.data as { n: number }).n);
  const upTo = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

  it("reads a burst of events too large for their notices in a few queries and delivers them in the order they were published", async () => {
    // One read per event could not keep up with a busy network.
    let reads = 0;
    await withWatchedHub(
      "obs_burst",
      () => (reads += 1),
      async (client) => {
        const burst = 200;
        await publishLarge(["obs_burst"], "test.burst", burst);
        await client.waitFor((message) => message.type === "test.burst" && (message.data as { n: number }).n === burst, "the last of the burst");
        expect(numbered(client, "test.burst")).toEqual(upTo(burst));
        expect(reads).toBeLessThan(10);
      },
    );
  });

  it("reads an event again when its read fails, and delivers every event in order", async () => {
    // The first two reads of stored events fail, as when the database fails over.
    let failuresLeft = 2;
    const failFirstReads = () => {
      if (failuresLeft === 0) return;
      failuresLeft -= 1;
      throw new Error("connection lost (simulated)");
    };
    await withWatchedHub("obs_retried", failFirstReads, async (client) => {
      await publishLarge(["obs_retried"], "test.retried", 5);
      await client.waitFor((message) => message.type === "test.retried" && (message.data as { n: number }).n === 5, "the last event");
      expect(numbered(client, "test.retried")).toEqual(upTo(5));
      expect(failuresLeft).toBe(0);
    });
  });

  it("closes a socket whose client reads nothing once more than the send limit waits for it (4413), while its peers get every event", async () => {
    const slow = await open(`${testUrl}?observatory=obs_slow`);
    const reader = await open(`${testUrl}?observatory=obs_reader`);
    const socket = (slow.ws as unknown as { _socket: Socket })._socket;
    socket.pause();
    const closed = new Promise<number>((resolve) => slow.ws.once("close", (code) => resolve(code)));
    // About 40 MB for each: more than loopback's socket buffers take in (a few MB) and the limit (8 MiB) together.
    // One burst: the reading client lives in the hub's own process and reads only when the hub gives
    // the event loop a turn, which it must do during a long delivery. The limit leaves it that much lag:
    // at 3 MiB a loaded run closed the reading client too (CI, 2026-11-29 night: after 886 events).
    const events = 4_000;
    const readerClosed = new Promise<never>((_resolve, reject) =>
      reader.ws.once("close", (code) => reject(new Error(`the reading client was closed (${code}) after ${numbered(reader, "test.flood").length} events`))),
    );
    await publishLarge(["obs_slow", "obs_reader"], "test.flood", events, 10_000);
    const last = reader.waitFor((message) => message.type === "test.flood" && (message.data as { n: number }).n === events, "the last event", 60_000);
    await Promise.race([last, readerClosed]);
    expect(numbered(reader, "test.flood")).toEqual(upTo(events));

    // Every event was sent, or refused, to the slow socket too: it reads again and learns why it was closed.
    socket.resume();
    const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve("not closed within 30 s of reading again"), 30_000).unref());
    expect(await Promise.race([closed, stillOpen])).toBe(4413);
    const received = numbered(slow, "test.flood");
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(events);
    expect(received).toEqual(upTo(received.length));
  });

  it("serves the user protocol through the same layer: ping is answered with pong, a malformed message with an error", async () => {
    const user = await signupUser(server);
    const client = await open(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${user.token}` });
    client.ws.send(JSON.stringify({ type: "ping", extra: true }));
    client.ws.send(JSON.stringify({ type: "subscribe" }));
    await client.waitFor((message) => message.type === "error");
    expect(client.messages.slice(1)).toEqual([{ type: "pong" }, { type: "error", data: { code: "VALIDATION_FAILED", detail: "Unknown message type" } }]);
    expect(userProtocol.path).toBe("/ws");
  });
});
