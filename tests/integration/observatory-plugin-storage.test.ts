import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observatoryWithKey } from "../support/observatory-keys";
import { openPluginSocket, type PluginSocket } from "../support/plugin-socket";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "plugin-storage-admin@example.com", password: "plugin storage admin password" };
const REPORT_LIMIT = 64 * 1024;
let server: TestServer;
const sockets: PluginSocket[] = [];
beforeAll(async () => {
  // Room for a plugin that sends hundreds of messages as fast as they are answered.
  ({ server } = await startServerWithAdmin(ADMIN, { MERIDIAN_ROLE: "server", PLUGIN_MESSAGES_PER_SECOND: "100000" }));
});
afterAll(async () => {
  for (const socket of sockets) await socket.client.close().catch(() => undefined);
  await server?.stop();
});
const { must } = jsonApi(() => server);
const db = () => server.server.runtime.deps.db;

async function plugin(key: string) {
  const socket = await openPluginSocket(server.url, key);
  sockets.push(socket);
  return socket;
}

/** A report whose JSON is exactly `bytes` long, of random (incompressible) text. */
function reportOfSize(bytes: number) {
  const empty = JSON.stringify({ blob: "" }).length;
  return {
    blob: randomBytes(bytes)
      .toString("hex")
      .slice(0, bytes - empty),
  };
}

const history = async (owner: Account, observatoryId: string) =>
  ((await must(`/observatories/${observatoryId}/history?limit=200`, { token: owner.token })) as { items: Array<{ type: string }> }).items;

/** The observatory row's current version: any update of the row, however small, gives it another. */
async function rowVersion(observatoryId: string) {
  const [row] = await db().execute<{ version: string }>(sql`select xmin::text as version from observatories where id = ${observatoryId}`);
  return row!.version;
}

async function storedReports(observatoryId: string) {
  const [row] = await db().execute<{ system_info: unknown; equipment: unknown }>(
    sql`select doc->'systemInfo' as system_info, doc->'equipment' as equipment from observatories where id = ${observatoryId}`,
  );
  return row!;
}

const tableBytes = async () => {
  const [row] = await db().execute<{ bytes: string }>(sql`select pg_total_relation_size('observatories')::text as bytes`);
  return Number(row!.bytes);
};

describe("what a plugin's reports cost the database", () => {
  it("refuses systemInfo or equipment over 64 KiB with PAYLOAD_TOO_LARGE and stores nothing of that message", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await plugin(key);
    const tooLarge = await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: reportOfSize(REPORT_LIMIT + 1), equipment: { camera: "A" } });
    expect(tooLarge).toMatchObject({ type: "error", code: "PAYLOAD_TOO_LARGE" });
    expect(tooLarge.message).toContain("systemInfo");
    expect(await storedReports(observatoryId)).toEqual({ system_info: null, equipment: null });
    expect(((await must(`/observatories/${observatoryId}`, { token: owner.token })) as { connection: { online: boolean } }).connection.online).toBe(false);

    // Exactly 64 KiB is accepted.
    const atLimit = reportOfSize(REPORT_LIMIT);
    expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: atLimit, equipment: { camera: "A" } })).toMatchObject({ type: "ack" });
    const refusedConfig = await socket.ask({ type: "config", systemInfo: { os: "linux" }, equipment: reportOfSize(REPORT_LIMIT + 100) });
    expect(refusedConfig).toMatchObject({ type: "error", code: "PAYLOAD_TOO_LARGE" });
    expect(refusedConfig.message).toContain("equipment");
    expect(await storedReports(observatoryId)).toEqual({ system_info: atLimit, equipment: { camera: "A" } });
    expect((await history(owner, observatoryId)).map((entry) => entry.type)).not.toContain("system_info_changed");
  });

  it("writes nothing for a report equal to the last one stored, however its keys are ordered", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await plugin(key);
    const systemInfo = { os: "linux", cores: 8, disks: [{ name: "sda", free: 0.5 }], zero: 0 };
    await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo, equipment: { camera: "A", mount: "B" } });
    const entries = (await history(owner, observatoryId)).length;
    const version = await rowVersion(observatoryId);
    for (let index = 0; index < 200; index += 1) {
      const reply = await socket.ask({
        type: "config",
        systemInfo: { zero: 0, disks: [{ free: 0.5, name: "sda" }], cores: 8, os: "linux" },
        equipment: { mount: "B", camera: "A" },
      });
      expect(reply.type).toBe("ack");
    }
    expect((await history(owner, observatoryId)).length).toBe(entries);
    expect(await rowVersion(observatoryId)).toBe(version);
    // A real change is recorded once.
    await socket.ask({ type: "config", equipment: { mount: "B", camera: "C" } });
    expect((await history(owner, observatoryId)).filter((entry) => entry.type === "equipment_configuration_changed")).toHaveLength(1);
  });

  it("keeps heartbeats out of the observatory's document: 500 of them leave its row and table as they were", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await observatoryWithKey(must, owner);
    const socket = await plugin(key);
    // The case: a large document, rewritten (with its TOASTed reports) by every heartbeat.
    await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: reportOfSize(60 * 1024) });
    const version = await rowVersion(observatoryId);
    const before = await tableBytes();
    for (let index = 0; index < 500; index += 1) expect((await socket.ask({ type: "heartbeat" })).type).toBe("ack");
    const grown = (await tableBytes()) - before;
    expect(await rowVersion(observatoryId)).toBe(version);
    // A few rows' worth at most (other tests' observatories share the table).
    expect(grown).toBeLessThan(3 * REPORT_LIMIT);
    const read = (await must(`/observatories/${observatoryId}`, { token: owner.token })) as { connection: { online: boolean; lastSeenAt?: string } };
    expect(read.connection.online).toBe(true);
    expect(read.connection.lastSeenAt).toBeDefined();
  });

  it("refuses a report holding the NUL character, which PostgreSQL cannot store, as invalid", async () => {
    const owner = await createAccount(server);
    const { key } = await observatoryWithKey(must, owner);
    const socket = await plugin(key);
    expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: { os: "linux\u0000" } })).toMatchObject({
      type: "error",
      code: "VALIDATION_FAILED",
    });
    expect(await socket.ask({ type: "hello", pluginVersion: "3.8.0.0", systemInfo: { os: "linux \\u0000 is text" } })).toMatchObject({ type: "ack" });
  });
});
