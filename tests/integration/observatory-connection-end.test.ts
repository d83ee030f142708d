import { observatoriesSeen } from "@meridian/domain/observatories";
import type { ObservatoryClient } from "@meridian/observatory-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { connectQuietPlugin, observingNetwork } from "../support/observing-network";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";

/**
 * A connection's own end (its goodbye or its close) ends its claim on the observatory. A sighting
 * its process writes a moment later (gathered for the second of its batch, or already on its
 * way) must not bring the observatory back online, and a hello after goodbye on the same socket
 * makes that socket the live connection again.
 */

let server: TestServer;
let clock: TestClock;
let owner: Account;
const clients: ObservatoryClient[] = [];
const sockets: PluginSocket[] = [];
const { must } = jsonApi(() => server);

beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server" });
  clock = controlServerClock(server, Date.now());
  owner = await createAccount(server);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await server?.stop();
});

async function connectedObservatory() {
  const { observatory, key } = await observingNetwork(must, owner);
  const client = await connectQuietPlugin(server.url, key.key);
  clients.push(client);
  return { observatoryId: observatory.id, client };
}

type Connection = { online: boolean; lastSeenAt?: string };
const connectionOf = async (observatoryId: string) =>
  ((await must(`/observatories/${observatoryId}`, { token: owner.token }, 200)) as { connection: Connection }).connection;
const historyOf = async (observatoryId: string) =>
  ((await must(`/observatories/${observatoryId}/history?limit=200`, { token: owner.token }, 200)) as { items: Array<{ type: string }> }).items.map(
    (item) => item.type,
  );
const onlineIs = (observatoryId: string, online: boolean) =>
  until(`the observatory to read ${online ? "online" : "offline"}`, async () => {
    const connection = await connectionOf(observatoryId);
    return connection.online === online ? connection : undefined;
  });

/** The connection the observatory's row names as live, as its process knows it. */
async function liveConnectionId(observatoryId: string) {
  const { sql } = server.server.runtime.deps;
  const [row] = await sql<Array<{ connection_id: string }>>`select connection_id from observatory_connections where observatory_id = ${observatoryId}`;
  return row?.connection_id;
}

describe("a replaced connection's hello", () => {
  it("is refused (4409) and leaves the observatory offline, when a newer connection claimed it unheard by this process", async () => {
    const { observatory, key } = await observingNetwork(must, owner);
    const plugin = await openPluginSocket(server.url, key.key);
    let closedWith: number | undefined;
    void plugin.closed.then((code) => (closedWith = code));
    await until("the connection's claim", () => liveConnectionId(observatory.id));
    // A newer connection's claim whose notice this process has not heard.
    await server.server.runtime.deps.sql`update observatory_connections set connection_id = 'a-newer-connection' where observatory_id = ${observatory.id}`;

    plugin.send({ type: "hello", pluginVersion: "4.0.0.0" });
    const outcome = await until("the hello's outcome", async () => closedWith ?? ((await connectionOf(observatory.id)).online ? "online" : undefined));

    expect(outcome).toBe(4409);
    expect((await connectionOf(observatory.id)).online).toBe(false);
    expect(await historyOf(observatory.id)).not.toContain("online");
  });
});

describe("the end of an observatory's connection", () => {
  it("is not undone by a sighting of it written after it closed", async () => {
    const { observatoryId, client } = await connectedObservatory();
    const connectionId = await liveConnectionId(observatoryId);
    expect(connectionId).toBeDefined();
    await client.close();
    const offline = await onlineIs(observatoryId, false);

    // What its process's batch does when the sighting was on its way as the connection closed.
    const deps = server.server.runtime.deps;
    const standings = await observatoriesSeen({ deps, sightings: [{ observatoryId, connectionId: connectionId!, at: new Date(clock.now()) }] });

    expect(standings.get(connectionId!)).toBe("replaced");
    expect(await connectionOf(observatoryId)).toEqual(offline);
    expect((await historyOf(observatoryId)).slice(0, 2)).toEqual(["offline", "online"]);
  });

  it("is not undone after goodbye either, and a hello on the same socket makes it live again until it closes", async () => {
    const { observatoryId, client } = await connectedObservatory();
    const connectionId = await liveConnectionId(observatoryId);
    await client.send({ type: "goodbye" });
    await onlineIs(observatoryId, false);
    const standings = await observatoriesSeen({
      deps: server.server.runtime.deps,
      sightings: [{ observatoryId, connectionId: connectionId!, at: new Date(clock.now()) }],
    });
    expect(standings.get(connectionId!)).toBe("replaced");
    expect((await connectionOf(observatoryId)).online).toBe(false);

    await client.send({ type: "hello", pluginVersion: "4.0.0.0" });
    await onlineIs(observatoryId, true);
    expect(await liveConnectionId(observatoryId)).toBe(connectionId);
    // Its sightings count again: a heartbeat after the minute is written to its row, and the socket stays open.
    const later = clock.now() + 61_000;
    clock.set(later);
    await client.send({ type: "heartbeat" });
    const { sql } = server.server.runtime.deps;
    await until("the heartbeat's sighting to be written", async () => {
      const [row] = await sql<Array<{ seen_ms: number }>>`
        select round(extract(epoch from last_seen_at) * 1000)::float8 as seen_ms from observatory_connections where observatory_id = ${observatoryId}`;
      return row?.seen_ms === later;
    });
    await client.send({ type: "heartbeat" });
    expect((await connectionOf(observatoryId)).online).toBe(true);

    // Its close, after that second hello, takes the observatory offline again.
    await client.close();
    await onlineIs(observatoryId, false);
    expect((await historyOf(observatoryId)).slice(0, 5)).toEqual(["offline", "online", "offline", "goodbye", "online"]);
  });

  it("comes by goodbye only after hello: a goodbye before it is refused (HELLO_REQUIRED) as any other message, and records nothing", async () => {
    const { observatory, key } = await observingNetwork(must, owner);
    const plugin = await openPluginSocket(server.url, key.key);
    sockets.push(plugin);
    const connectionId = await until("the connection's claim", () => liveConnectionId(observatory.id));
    expect(await plugin.ask({ type: "heartbeat" })).toMatchObject({ type: "error", code: "HELLO_REQUIRED" });
    expect(await plugin.ask({ type: "goodbye" })).toMatchObject({
      type: "error",
      code: "HELLO_REQUIRED",
      message: "Send hello with the plugin version first",
    });
    expect(await historyOf(observatory.id)).not.toContain("goodbye");
    // Its claim stands: its hello brings the observatory online.
    expect(await liveConnectionId(observatory.id)).toBe(connectionId);
    expect(await plugin.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
    expect((await connectionOf(observatory.id)).online).toBe(true);
  });

  it("is recorded once per hello: after goodbye, another goodbye is refused (HELLO_REQUIRED) until a hello", async () => {
    const { observatory, key } = await observingNetwork(must, owner);
    const plugin = await openPluginSocket(server.url, key.key);
    sockets.push(plugin);
    expect(await plugin.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
    expect(await plugin.ask({ type: "goodbye" })).toMatchObject({ type: "ack" });
    // The connection is as before hello.
    expect(await plugin.ask({ type: "heartbeat" })).toMatchObject({ type: "error", code: "HELLO_REQUIRED" });
    for (let again = 0; again < 2; again += 1) expect(await plugin.ask({ type: "goodbye" })).toMatchObject({ type: "error", code: "HELLO_REQUIRED" });
    expect((await historyOf(observatory.id)).filter((type) => type === "goodbye")).toHaveLength(1);

    // A hello makes it live again, and its goodbye then is recorded.
    expect(await plugin.ask({ type: "hello", pluginVersion: "4.0.0.0" })).toMatchObject({ type: "ack" });
    expect(await plugin.ask({ type: "goodbye" })).toMatchObject({ type: "ack" });
    expect((await historyOf(observatory.id)).slice(0, 6)).toEqual(["offline", "goodbye", "online", "offline", "goodbye", "online"]);
  });
});
