import { randomUUID } from "node:crypto";
import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { publishEvent } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, logout } from "../support/auth-suite";
import { openWebSocketCount, signupUser, startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { connectWebSocket, openWebSocket, type OpenClient } from "../support/ws-client";

let server: TestServer;
let wsUrl: string;
let database: DatabaseHandle;
let alice: Awaited<ReturnType<typeof signupUser>>;
let bob: Awaited<ReturnType<typeof signupUser>>;
const clients: OpenClient[] = [];

async function track(client: Promise<OpenClient>) {
  const opened = await client;
  clients.push(opened);
  return opened;
}

beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
  wsUrl = `${server.url.replace(/^http/, "ws")}/ws`;
  database = connectDatabase(server.databaseUrl, { max: 2 });
  alice = await signupUser(server);
  bob = await signupUser(server);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await database?.close();
  await server?.stop();
});

describe("WebSocket /ws: who may connect", () => {
  it("refuses an upgrade without credentials with 401", async () => {
    const attempt = await connectWebSocket(wsUrl);
    expect(attempt.ok).toBe(false);
    if (attempt.ok) return;
    expect(attempt.status).toBe(401);
    expect(JSON.parse(attempt.body).code).toBe("UNAUTHENTICATED");
  });

  it("refuses an unknown bearer token with 401", async () => {
    const attempt = await connectWebSocket(wsUrl, { authorization: "Bearer not-a-real-token" });
    expect(attempt).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses a valid session token passed in the URL query (401)", async () => {
    for (const name of ["token", "access_token", "session"]) {
      const attempt = await connectWebSocket(`${wsUrl}?${name}=${encodeURIComponent(alice.token)}`);
      expect(attempt).toMatchObject({ ok: false, status: 401 });
    }
  });

  it("accepts the session cookie from login when the Origin is the server's own", async () => {
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: alice.user.email, password: alice.password } });
    expect(login.status).toBe(200);
    const setCookie = login.headers.getSetCookie().find((cookie) => cookie.startsWith("session="));
    expect(setCookie).toBeDefined();
    const cookie = setCookie!.split(";")[0]!;
    const client = await track(openWebSocket(wsUrl, { cookie, origin: server.url }));
    expect(client.messages[0]).toEqual({ type: "welcome", data: { userId: alice.user.id } });
  });

  it("refuses the session cookie from a foreign Origin (cross-site WebSocket hijacking)", async () => {
    const attempt = await connectWebSocket(wsUrl, { cookie: `session=${alice.token}`, origin: "https://evil.example" });
    expect(attempt).toMatchObject({ ok: false, status: 403 });
  });

  it("accepts the session cookie beside other cookies, even a malformed one", async () => {
    const client = await track(openWebSocket(wsUrl, { cookie: `theme=%E0%A4%A; session=${encodeURIComponent(alice.token)}; other=1`, origin: server.url }));
    expect(client.messages[0]).toEqual({ type: "welcome", data: { userId: alice.user.id } });
  });

  it("accepts a session token as Authorization: Bearer", async () => {
    const client = await track(openWebSocket(wsUrl, { authorization: `Bearer ${bob.token}` }));
    expect(client.messages[0]).toEqual({ type: "welcome", data: { userId: bob.user.id } });
  });

  it("accepts an API key as Authorization: Bearer, and not once it is revoked", async () => {
    const { id, key } = await createApiKey(server, alice.token, "ws");
    const client = await track(openWebSocket(wsUrl, { authorization: `Bearer ${key}` }));
    expect(client.messages[0]).toEqual({ type: "welcome", data: { userId: alice.user.id } });

    expect((await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: alice.token })).status).toBe(204);
    expect(await connectWebSocket(wsUrl, { authorization: `Bearer ${key}` })).toMatchObject({ ok: false, status: 401 });
  });

  it("stops accepting a session token after logout", async () => {
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: bob.user.email, password: bob.password } });
    const { token } = (await login.json()) as { token: string };
    const client = await track(openWebSocket(wsUrl, { authorization: `Bearer ${token}` }));
    expect(client.messages[0]?.type).toBe("welcome");
    await logout(server, token);
    expect(await connectWebSocket(wsUrl, { authorization: `Bearer ${token}` })).toMatchObject({ ok: false, status: 401 });
  });

  it("counts open connections in /api/health", async () => {
    // A server of its own: sockets other tests closed would otherwise still be leaving the count.
    const quiet = await startTestServer({ MERIDIAN_ROLE: "server" });
    try {
      const user = await signupUser(quiet);
      const connections = () => openWebSocketCount(quiet);
      expect(await connections()).toBe(0);
      const client = await openWebSocket(`${quiet.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${user.token}` });
      expect(await connections()).toBe(1);
      await client.close();
      await until("the closed socket to leave the count", async () => (await connections()) === 0);
    } finally {
      await quiet.stop();
    }
  });
});

describe("WebSocket /ws: sockets per user", () => {
  const CAP = 20; // WS_CONNECTIONS_PER_USER's default
  const DETAIL = `At most ${CAP} connections at once on this server; close one (another tab or window) or try again later`;

  it(`refuses a user's upgrade beyond ${CAP} open sockets with 429 RATE_LIMITED and Retry-After; the open ones and other users go on`, async () => {
    const user = await signupUser(server);
    const bearer = { authorization: `Bearer ${user.token}` };
    // Upgrades sent at once cannot all pass the count: exactly the cap opens.
    const attempts = await Promise.all(Array.from({ length: CAP + 5 }, () => connectWebSocket(wsUrl, bearer)));
    const opened = attempts.flatMap((attempt) => (attempt.ok ? [attempt.client] : []));
    clients.push(...opened);
    expect(opened).toHaveLength(CAP);
    for (const attempt of attempts) {
      if (attempt.ok) continue;
      expect(attempt.status).toBe(429);
      expect(attempt.headers["retry-after"]).toBe("30");
      expect(attempt.headers["content-type"]).toMatch(/^application\/problem\+json/);
      // The same problem+json as any refused request, its `type` included.
      expect(JSON.parse(attempt.body)).toEqual({
        type: "https://meridian.dev/problems/rate-limited",
        title: "Too many requests",
        status: 429,
        code: "RATE_LIMITED",
        detail: DETAIL,
        instance: "/ws",
      });
    }
    // The sockets already open stay open and answer.
    for (const client of opened) await client.waitFor((message) => message.type === "welcome");
    opened[CAP - 1]!.ws.send(JSON.stringify({ type: "ping" }));
    await opened[CAP - 1]!.waitFor((message) => message.type === "pong");
    expect(opened.every((client) => client.ws.readyState === client.ws.OPEN)).toBe(true);

    // The count is the user's, not a session's: another session of theirs is refused too; another user is not.
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: user.user.email, password: user.password } });
    const { token: secondSession } = (await login.json()) as { token: string };
    expect(await connectWebSocket(wsUrl, { authorization: `Bearer ${secondSession}` })).toMatchObject({ ok: false, status: 429 });
    const other = await signupUser(server);
    expect((await track(openWebSocket(wsUrl, { authorization: `Bearer ${other.token}` }))).messages[0]).toMatchObject({ type: "welcome" });

    // A closed socket frees its place once the server has seen the close: the next upgrade opens, and the one after is refused again.
    await opened[0]!.close();
    const next = await until("the closed socket's place", async () => {
      const attempt = await connectWebSocket(wsUrl, bearer);
      if (attempt.ok) return attempt.client;
      expect(attempt.status).toBe(429);
      return undefined;
    });
    clients.push(next);
    await next.waitFor((message) => message.type === "welcome");
    expect(await connectWebSocket(wsUrl, bearer)).toMatchObject({ ok: false, status: 429 });
    await Promise.all([...opened.slice(1), next].map((client) => client.close()));
  });
});

describe("WebSocket /ws: messages", () => {
  it("answers ping with pong, and an unknown or malformed message with an error", async () => {
    const client = await track(openWebSocket(wsUrl, { authorization: `Bearer ${alice.token}` }));
    client.ws.send(JSON.stringify({ type: "ping" }));
    await client.waitFor((message) => message.type === "pong");
    client.ws.send("not json");
    const error = await client.waitFor((message) => message.type === "error");
    expect(error.data).toMatchObject({ code: "VALIDATION_FAILED" });
    client.ws.send(JSON.stringify({ type: "ping" }));
    await client.waitFor((message) => message.type === "pong" && client.messages.filter((m) => m.type === "pong").length === 2);
  });

  it("delivers an event published in a committed transaction to the named users only", async () => {
    const aliceClient = await track(openWebSocket(wsUrl, { authorization: `Bearer ${alice.token}` }));
    const aliceSecond = await track(openWebSocket(wsUrl, { authorization: `Bearer ${alice.token}` }));
    const bobClient = await track(openWebSocket(wsUrl, { authorization: `Bearer ${bob.token}` }));

    const forAlice = { marker: randomUUID() };
    await database.db.transaction(async (tx) => {
      await publishEvent({ t: { tx }, userIds: [alice.user.id], event: { type: "test.for_alice", data: forAlice } });
    });
    const received = await aliceClient.waitFor((message) => message.type === "test.for_alice");
    expect(received.data).toEqual(forAlice);
    // Every socket of the user gets it.
    await aliceSecond.waitFor((message) => message.type === "test.for_alice");

    // The hub sent the first event to every socket before this one was even published, and a
    // socket delivers in order: had Bob been sent the first, it would arrive before this one.
    const forBoth = { marker: randomUUID() };
    await database.db.transaction((tx) => publishEvent({ t: { tx }, userIds: [alice.user.id, bob.user.id], event: { type: "test.for_both", data: forBoth } }));
    expect((await bobClient.waitFor((message) => message.type === "test.for_both")).data).toEqual(forBoth);
    expect((await aliceClient.waitFor((message) => message.type === "test.for_both")).data).toEqual(forBoth);
    expect(bobClient.messages.map((message) => message.type)).not.toContain("test.for_alice");
  });

  it("does not deliver an event whose transaction rolls back", async () => {
    const aliceClient = await track(openWebSocket(wsUrl, { authorization: `Bearer ${alice.token}` }));
    const rolledBack = { marker: randomUUID() };
    await expect(
      database.db.transaction(async (tx) => {
        await publishEvent({ t: { tx }, userIds: [alice.user.id], event: { type: "test.rolled_back", data: rolledBack } });
        throw new Error("abort the change");
      }),
    ).rejects.toThrow("abort the change");

    const committed = { marker: randomUUID() };
    await database.db.transaction(async (tx) => {
      await publishEvent({ t: { tx }, userIds: [alice.user.id], event: { type: "test.committed", data: committed } });
    });
    expect((await aliceClient.waitFor((message) => message.type === "test.committed")).data).toEqual(committed);
    expect(aliceClient.messages.map((message) => message.type)).not.toContain("test.rolled_back");
  });

  it("closes sockets when the server stops", async () => {
    const other = await startTestServer({ MERIDIAN_ROLE: "server" });
    try {
      const user = await signupUser(other);
      const client = await openWebSocket(`${other.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${user.token}` });
      const closed = new Promise<number>((resolve) => client.ws.once("close", (code) => resolve(code)));
      await other.server.stop();
      expect(await closed).toBe(1001);
    } finally {
      await other.stop();
    }
  });
});
