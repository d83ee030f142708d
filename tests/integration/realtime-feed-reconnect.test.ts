import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observingNetwork } from "../support/observing-network";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import { holdRows } from "../support/table-hold";
import { startTestServer, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { openWebSocket } from "../support/ws-client";

const QUEUE_LIMIT = 4;
let server: TestServer;
const closers: Array<() => Promise<unknown>> = [];
beforeAll(async () => {
  // The worker runs in the server process: submissions are dispatched.
  server = await startTestServer({ MERIDIAN_ROLE: "all", PLUGIN_QUEUE_LIMIT: String(QUEUE_LIMIT) });
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);

const target = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] };
const assignsOf = (plugin: PluginSocket, id: string) =>
  plugin.received().filter((message) => message.type === "assign" && message.observation.id === id).length;

async function userSocket(token: string) {
  const socket = await openWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${token}` });
  closers.push(() => socket.close());
  let closedWith: number | undefined;
  socket.ws.once("close", (code) => (closedWith = code));
  return { socket, closed: () => until("the user's socket to close", async () => closedWith) };
}

/** Ends the server's LISTEN connection from PostgreSQL's side, as a network cut or a proxy's idle timeout would. */
async function cutTheServersListen() {
  const rows = await server.server.runtime.deps.db.execute<{ cut: boolean }>(sql`
    select pg_terminate_backend(pid) as cut from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid() and query like 'listen "meridian%'`);
  expect(rows.map((row) => row.cut)).toEqual([true]);
}

/** An owner's observatory with a plugin connected and told to run a new observation. */
async function assignedToAPlugin(name: string) {
  const owner = await createAccount(server);
  const { observatory, project, key } = await observingNetwork(must, owner);
  const plugin = await openPluginSocket(server.url, key.key);
  closers.push(() => plugin.client.close());
  expect(await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
  const created = (await must(
    "/observations",
    { method: "POST", token: owner.token, json: { name, projectId: project.id, observatoryId: observatory.id, targets: [target] } },
    201,
  )) as { id: string };
  await until("the assignment", async () => assignsOf(plugin, created.id) >= 1);
  return { owner, observatory, plugin, created };
}

describe("the server's realtime feed after its LISTEN connection came back", () => {
  it("closes user sockets (1012) so their clients read again, and sends plugins what may have been missed", async () => {
    const { owner, plugin, created } = await assignedToAPlugin("Across a cut");
    const assignsBefore = assignsOf(plugin, created.id);
    const before = await userSocket(owner.token);

    await cutTheServersListen();

    // Whatever was published while it was down reached nobody: the user's client is told to connect again...
    expect(await before.closed()).toBe(1012);
    // ...and the plugin, kept, gets its unstarted assignment again (it ignores one it has).
    await until("the assignment sent again", async () => assignsOf(plugin, created.id) > assignsBefore);
    expect(plugin.client.ws.readyState).toBe(plugin.client.ws.OPEN);

    // Events flow again, to the plugin and to a user who connected again.
    const after = await userSocket(owner.token);
    await must(`/observations/${created.id}/cancel`, { method: "POST", token: owner.token }, 200);
    await plugin.client.waitFor((message) => (message as { type?: string }).type === "cancel", "the cancel after the cut");
    await after.socket.waitFor(
      (message) => message.type === "observation.status_changed" && (message.data as { id: string; status: string }).status === "cancelled",
      "the cancelled status after the cut",
    );
  });
  it("sends a plugin the cancel of an observation it was told to run and the announcement that started, while the feed was down", async () => {
    const { owner, observatory, plugin, created } = await assignedToAPlugin("Cancelled unheard");
    // A cancel whose notice this process never heard (it was published while its LISTEN connection was down).
    await server.server.runtime.deps.db.execute(
      sql`update observations set status = 'cancelled', doc = jsonb_set(doc, '{status}', '"cancelled"') where id = ${created.id}`,
    );
    expect(plugin.received().some((message) => message.type === "cancel")).toBe(false);
    // An announcement scheduled for later, whose start (and its motd) came while the feed was down; and one the plugin was given.
    const announce = (title: string, startsAt?: string) =>
      must(
        `/observatories/${observatory.id}/motd`,
        {
          method: "POST",
          token: owner.token,
          json: { title, message: "Dome work", severity: "info", deliveryType: "message", ...(startsAt ? { startsAt } : {}) },
        },
        201,
      ) as Promise<{ id: string }>;
    const given = await announce("Given before the cut");
    await until("the announcement given", async () => plugin.received().some((message) => message.type === "motd" && message.announcement.id === given.id));
    const started = await announce("Started during the cut", new Date(Date.now() + 3_600_000).toISOString());
    await server.server.runtime.deps.db.execute(sql`update announcements set starts_at = now() - interval '1 second' where id = ${started.id}`);

    await cutTheServersListen();

    await until("the cancel sent after the cut", async () =>
      plugin.received().some((message) => message.type === "cancel" && message.observationId === created.id),
    );
    await until("the started announcement sent after the cut", async () =>
      plugin.received().some((message) => message.type === "motd" && message.announcement.id === started.id),
    );
    // The one it was given is not sent again.
    expect(plugin.received().filter((message) => message.type === "motd" && message.announcement.id === given.id)).toHaveLength(1);
    expect(plugin.client.ws.readyState).toBe(plugin.client.ws.OPEN);
  });
  it("closes a plugin (4409) whose observatory a newer connection claimed while the feed was down", async () => {
    const owner = await createAccount(server);
    const { observatory, key } = await observingNetwork(must, owner);
    const plugin = await openPluginSocket(server.url, key.key);
    closers.push(() => plugin.client.close());
    expect(await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
    // A claim whose notice this process never heard: the connection row names another connection.
    await server.server.runtime.deps.db.execute(
      sql`update observatory_connections set connection_id = 'a-newer-connection' where observatory_id = ${observatory.id}`,
    );

    await cutTheServersListen();

    expect(await plugin.closed).toBe(4409);
    const read = (await must(`/observatories/${observatory.id}`, { token: owner.token })) as { connection: { online: boolean } };
    // Replaced, it leaves the observatory to the newer connection: still online.
    expect(read.connection.online).toBe(true);
  });
  it("closes a plugin (1012) whose waiting messages fill its queue when the feed comes back, so it connects again rather than miss its catch-up", async () => {
    const owner = await createAccount(server);
    const { observatory, key } = await observingNetwork(must, owner);
    const plugin = await openPluginSocket(server.url, key.key);
    closers.push(() => plugin.client.close());
    expect(await plugin.ask({ type: "hello", pluginVersion: "3.8.0.0" })).toMatchObject({ type: "ack" });
    // The first safety report waits for the observatory's row; QUEUE_LIMIT more wait behind it: the queue is full.
    const hold = await holdRows(server.databaseUrl, `select 1 from observatories where id = '${observatory.id}' for update`);
    // Released by afterAll too, should the test end before its `finally`, so the server can stop.
    closers.push(() => hold.release());
    try {
      plugin.send({ type: "safety", safe: false, reason: "dome fault" });
      await until("the first report waiting for the row", () => hold.waiting());
      for (let index = 0; index < QUEUE_LIMIT; index += 1) plugin.send({ type: "heartbeat" });
      // The server answers a ping after the messages sent before it, so once the pong is here all of them are queued.
      await new Promise<void>((resolve) => {
        plugin.client.ws.once("pong", () => resolve());
        plugin.client.ws.ping();
      });
      expect(plugin.client.ws.readyState).toBe(plugin.client.ws.OPEN);

      await cutTheServersListen();

      expect(await plugin.closed).toBe(1012);
    } finally {
      await hold.release();
    }
    // Closed, the connection leaves its observatory offline once the report it was handling is done.
    await until("the observatory offline", async () => {
      const read = (await must(`/observatories/${observatory.id}`, { token: owner.token })) as { connection: { online: boolean } };
      return !read.connection.online;
    });
  });
});
