import { collections } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "key-columns-admin@example.com", password: "key columns admin password" };
let server: TestServer;
let adminToken: string;
let alice: Account;
let bob: Account;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  alice = await createAccount(server, { email: "key-columns-alice@example.com" });
  bob = await createAccount(server, { email: "key-columns-bob@example.com" });
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

const announce = async (extra: Record<string, unknown> = {}) =>
  (await must(
    "/api/v1/system/motd",
    {
      method: "POST",
      token: adminToken,
      json: {
        title: "Columns",
        message: "Kept with the document",
        severity: "info",
        deliveryType: "message",
        targets: { users: { ids: [alice.id, bob.id] } },
        ...extra,
      },
    },
    201,
  )) as { id: string };

/** Every stored row whose key columns differ from what the collection's `keys` makes of its document. */
async function driftedRows() {
  const db = server.server.runtime.deps.db;
  const drifted: string[] = [];
  for (const [name, collection] of Object.entries(collections)) {
    const rows = await db
      .select()
      .from(collection.table as never)
      .where(sql`true`);
    for (const row of rows as Array<Record<string, unknown> & { id: string; doc: never }>) {
      const keysOf = collection.keys as (doc: unknown) => Record<string, unknown>;
      for (const [column, value] of Object.entries(keysOf(row.doc))) {
        const stored = row[column];
        const same = value instanceof Date ? stored instanceof Date && stored.getTime() === value.getTime() : stored === value;
        if (!same) drifted.push(`${name} ${row.id} ${column}: column ${String(stored)}, document ${String(value)}`);
      }
    }
  }
  return drifted;
}

describe("a document and its key columns", () => {
  it("agree after every kind of announcement change: acknowledgment to the last recipient, cancellation, expiry", async () => {
    const acknowledged = await announce();
    for (const account of [alice, bob]) await must(`/api/v1/system/motd/${acknowledged.id}/acknowledge`, { method: "POST", token: account.token }, 200);
    const cancelled = await announce();
    await must(`/api/v1/system/motd/${cancelled.id}`, { method: "DELETE", token: adminToken, json: { reason: "Wrong audience" } }, 200);
    const expiring = await announce({ expiresAt: new Date(Date.now() + 60 * 60_000).toISOString() });
    const realNow = server.server.runtime.deps.now;
    server.server.runtime.deps.now = () => new Date(Date.now() + 2 * 60 * 60_000);
    try {
      await must("/api/v1/system/motd", { token: adminToken }, 200);
    } finally {
      server.server.runtime.deps.now = realNow;
    }
    const statuses = Object.fromEntries(
      ((await must("/api/v1/system/motd?limit=200", { token: adminToken }, 200)).items as Array<{ id: string; status: string }>).map((item) => [
        item.id,
        item.status,
      ]),
    );
    expect([statuses[acknowledged.id], statuses[cancelled.id], statuses[expiring.id]]).toEqual(["acknowledged", "cancelled", "expired"]);
    expect(await driftedRows()).toEqual([]);
  });
});
