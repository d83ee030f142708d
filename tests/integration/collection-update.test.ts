import { connectDatabase, sessionsCollection, type DatabaseHandle, type SessionDoc } from "@meridian/db";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockWaiters } from "../support/table-hold";
import { createTestDatabase } from "../support/test-database";
import { until } from "../support/until";

// A collection's update given the row the caller read (`seen`) writes without reading it again, and still loses no change.
let url: string;
let database: DatabaseHandle;
beforeAll(async () => {
  url = (await createTestDatabase()).url;
  database = connectDatabase(url, { max: 2 });
});
afterAll(() => database?.close());

const session = (tokenHash: string): SessionDoc => ({
  userId: "usr_update_test",
  tokenHash,
  expiresAt: "2030-01-01T00:00:00.000Z",
  userAgent: null,
  ip: null,
  lastUsedAt: null,
});
const renamed = (userAgent: string) => (doc: SessionDoc) => ({ ...doc, userAgent });

describe("a collection's update with the row as the caller saw it", () => {
  it("writes the change and its key columns when the stored document is still that one", async () => {
    const stored = await sessionsCollection.insert(database.db, session("hash-unchanged"));
    const updated = await sessionsCollection.update(database.db, stored.id, (doc) => ({ ...doc, tokenHash: "hash-changed" }), { seen: stored });
    expect(updated?.doc.tokenHash).toBe("hash-changed");
    const [row] = await database.sql<Array<{ token_hash: string }>>`select token_hash from sessions where id = ${stored.id}`;
    expect(row?.token_hash).toBe("hash-changed");
  });

  it("applies the change to the stored document when it changed since the caller read it", async () => {
    const stored = await sessionsCollection.insert(database.db, session("hash-stale"));
    await sessionsCollection.update(database.db, stored.id, (doc) => ({ ...doc, ip: "192.0.2.7" }));
    const updated = await sessionsCollection.update(database.db, stored.id, renamed("after"), { seen: stored });
    // The other writer's ip stays: the stale copy was not written back.
    expect(updated?.doc).toMatchObject({ ip: "192.0.2.7", userAgent: "after" });
    expect((await sessionsCollection.get(database.db, stored.id))?.doc).toMatchObject({ ip: "192.0.2.7", userAgent: "after" });
  });

  it("waits for a writer that holds the row, then applies the change on top of what that writer committed", async () => {
    const stored = await sessionsCollection.insert(database.db, session("hash-locked"));
    const other = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const otherWriter = other.begin(async (tx) => {
        await tx`update sessions set doc = doc || '{"ip": "198.51.100.1"}' where id = ${stored.id}`;
        holding();
        // Held until the update below is waiting on this row.
        await until(
          "the update to wait for the row",
          async () => {
            const [waiting] = await database.sql<Array<{ count: number }>>`
            select count(*)::int as count from pg_stat_activity where wait_event_type = 'Lock' and query like 'update "sessions"%'`;
            return waiting!.count > 0;
          },
          { intervalMs: 5 },
        );
      });
      await held;
      const updated = sessionsCollection.update(database.db, stored.id, renamed("queued"), { seen: stored });
      await otherWriter;
      expect((await updated)?.doc).toMatchObject({ ip: "198.51.100.1", userAgent: "queued" });
    } finally {
      await other.end();
    }
  });

  it("outside a transaction, keeps a change another writer committed between its read and its write", async () => {
    const stored = await sessionsCollection.insert(database.db, session("hash-between"));
    const holder = postgres(url, { max: 1, onnotice: () => undefined });
    const writer = postgres(url, { max: 1, onnotice: () => undefined });
    const waitingOnLocks = () => lockWaiters(database.sql);
    try {
      // The row is held; the update's locked read queues first, then the other writer's statement.
      await holder`begin`;
      await holder`select id from sessions where id = ${stored.id} for update`;
      const updated = sessionsCollection.update(database.db, stored.id, renamed("mine"));
      await until("the update's read to wait for the row", async () => (await waitingOnLocks()) >= 1, { intervalMs: 5 });
      const written = writer`update sessions set doc = doc || '{"ip": "203.0.113.9"}' where id = ${stored.id}`.execute();
      await until("the other writer to wait behind it", async () => (await waitingOnLocks()) >= 2, { intervalMs: 5 });
      // The read is served and its lock ends with its statement; the other writer usually commits before the update
      // writes. Under load the update's write can come first instead, and the other writer's change lands on top of it:
      // either way the row keeps both changes, which is what is asserted (the update's own answer shows its change).
      await holder`rollback`;
      await written;
      expect((await updated)?.doc).toMatchObject({ userAgent: "mine" });
      expect((await sessionsCollection.get(database.db, stored.id))?.doc).toMatchObject({ ip: "203.0.113.9", userAgent: "mine" });
    } finally {
      await holder.end();
      await writer.end();
    }
  });

  it("answers nothing for a row that does not exist, as without `seen`", async () => {
    const stored = await sessionsCollection.insert(database.db, session("hash-gone"));
    await database.sql`delete from sessions where id = ${stored.id}`;
    expect(await sessionsCollection.update(database.db, stored.id, renamed("gone"), { seen: stored })).toBeUndefined();
  });
});
