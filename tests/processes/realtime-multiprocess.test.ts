import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { connectDatabase, type DatabaseHandle } from "@meridian/db";
import { publishEvent } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePort } from "../../scripts/free-port";
import { spawnEntry, terminate, waitForOutput, type NodeProcess } from "../support/node-process";
import { createTestDatabase } from "../support/test-database";
import { runStoreEnv } from "../support/run-store";

interface ServerProcess extends NodeProcess {
  url: string;
}

/** `node --import tsx apps/server/src/main.ts` as its own process, HTTP only, over the shared database. */
async function spawnServer(name: string, env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const proc = spawnEntry("server", { NODE_ENV: "test", PORT: String(port), MERIDIAN_ROLE: "server", ...env }, name);
  const processInfo: ServerProcess = { ...proc, url: `http://127.0.0.1:${port}` };
  children.push(processInfo);
  await waitForOutput(processInfo, /listening on/, 60_000);
  return processInfo;
}

const stopChild = (server: ServerProcess) => terminate(server, 20_000);

interface Client {
  messages: Array<{ type: string; data?: unknown }>;
  waitFor(type: string, timeoutMs?: number): Promise<{ type: string; data?: unknown }>;
  close(): void;
}

function openClient(serverUrl: string, token: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${serverUrl.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${token}` } });
    const messages: Client["messages"] = [];
    ws.on("message", (raw) => messages.push(JSON.parse(raw.toString())));
    ws.on("unexpected-response", (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
    ws.on("error", reject);
    const client: Client = {
      messages,
      async waitFor(type, timeoutMs = 10_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const found = messages.find((message) => message.type === type);
          if (found) return found;
          if (Date.now() > deadline) throw new Error(`no ${type} within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
          await new Promise((resolveWait) => setTimeout(resolveWait, 25));
        }
      },
      close: () => ws.close(),
    };
    ws.on("open", () => void client.waitFor("welcome").then(() => resolve(client), reject));
  });
}

const children: ServerProcess[] = [];
const clients: Client[] = [];
let dataDir: string;
let database: DatabaseHandle;
let serverA: ServerProcess;
let serverB: ServerProcess;

beforeAll(async () => {
  const { url } = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-two-"));
  const shared = {
    DATABASE_URL: url,
    SECRETS_KEY: "test secrets key shared by every process of this run",
    ...runStoreEnv(`test-${randomBytes(4).toString("hex")}`),
    WEB_DIST_DIR: path.join(dataDir, "no-web"),
  };
  [serverA, serverB] = await Promise.all([
    spawnServer("A", { ...shared, DATA_DIR: path.join(dataDir, "a") }),
    spawnServer("B", { ...shared, DATA_DIR: path.join(dataDir, "b") }),
  ]);
  database = connectDatabase(url, { max: 2 });
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await database?.close();
  const results = await Promise.all(children.map(stopChild));
  await fs.rm(dataDir, { recursive: true, force: true });
  // Every child shut down by itself on SIGTERM (none had to be killed).
  expect(results.every((result) => result.code === 0)).toBe(true);
}, 60_000);

async function signup(server: ServerProcess) {
  const response = await fetch(`${server.url}/api/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `multi-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery", name: "Multi" }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { user: { id: string; email: string }; token: string };
}

describe("realtime events across server processes", () => {
  it("runs two separate server processes over one database", async () => {
    expect(serverA.child.pid).not.toBe(serverB.child.pid);
    for (const server of [serverA, serverB]) {
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { checks: { database: { status: string } } }).checks.database.status).toBe("ok");
    }
    // A session created through process A is valid in process B: they share the database.
    const user = await signup(serverA);
    const me = await fetch(`${serverB.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(me.status).toBe(200);
  });

  it("delivers an event published by another process to the client connected to process B", async () => {
    const alice = await signup(serverA);
    const bob = await signup(serverA);
    const aliceOnB = await openClient(serverB.url, alice.token);
    const aliceOnA = await openClient(serverA.url, alice.token);
    const bobOnB = await openClient(serverB.url, bob.token);
    clients.push(aliceOnB, aliceOnA, bobOnB);

    // The publisher is this test process: neither A nor B. Its NOTIFY must reach both server
    // processes' LISTEN connections, and each forwards it to its own sockets of the named user.
    const data = { marker: randomUUID() };
    await database.db.transaction(async (tx) => {
      await publishEvent({ t: { tx }, userIds: [alice.user.id], event: { type: "test.cross_process", data } });
    });
    expect((await aliceOnB.waitFor("test.cross_process")).data).toEqual(data);
    expect((await aliceOnA.waitFor("test.cross_process")).data).toEqual(data);

    // Bob, on B as well, was not named: an event for him sent after Alice's arrives, Alice's never does.
    const forBob = { marker: randomUUID() };
    await database.db.transaction((tx) => publishEvent({ t: { tx }, userIds: [bob.user.id], event: { type: "test.for_bob", data: forBob } }));
    expect((await bobOnB.waitFor("test.for_bob")).data).toEqual(forBob);
    expect(bobOnB.messages.map((message) => message.type)).not.toContain("test.cross_process");
  });

  it("delivers to a client of B the event a request to A publishes", async () => {
    const owner = await signup(serverA);
    const newcomer = await signup(serverA);
    const newcomerOnB = await openClient(serverB.url, newcomer.token);
    clients.push(newcomerOnB);
    const headers = { "content-type": "application/json", authorization: `Bearer ${owner.token}` };
    const created = await fetch(`${serverA.url}/organizations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Cross Process", shortName: `x-${randomBytes(3).toString("hex")}`, type: "other", contactEmail: "x@example.com" }),
    });
    expect(created.status).toBe(201);
    const organization = (await created.json()) as { id: string };
    // Process A handles the request and publishes in its transaction; process B holds the socket.
    const added = await fetch(`${serverA.url}/organizations/${organization.id}/members`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: newcomer.user.email }),
    });
    expect(added.status).toBe(201);
    const event = await newcomerOnB.waitFor("organization.member_added");
    expect(event.data).toMatchObject({ organizationId: organization.id, organizationName: "Cross Process" });
  });

  it("keeps delivering on B after process A has shut down", async () => {
    const carol = await signup(serverB);
    const carolOnB = await openClient(serverB.url, carol.token);
    clients.push(carolOnB);
    expect(await stopChild(serverA)).toEqual({ code: 0, signal: null });
    const data = { marker: randomUUID() };
    await database.db.transaction((tx) => publishEvent({ t: { tx }, userIds: [carol.user.id], event: { type: "test.after_a_stopped", data } }));
    expect((await carolOnB.waitFor("test.after_a_stopped")).data).toEqual(data);
  });
});
