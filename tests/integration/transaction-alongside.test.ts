import { sessionsCollection, tables, type SessionDoc } from "@meridian/db";
import { inTransaction } from "@meridian/domain/platform";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

// A statement sent alongside (an event's insert) costs no round trip of its own, and is still part of its transaction.
const ADMIN = { email: "alongside-admin@example.com", password: "alongside admin password" };
let server: TestServer;
let adminToken: string;
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
});
afterAll(() => server?.stop());

const deps = () => server.server.runtime.deps;
const session = (tokenHash: string): SessionDoc => ({
  userId: "usr_alongside_test",
  tokenHash,
  expiresAt: "2030-01-01T00:00:00.000Z",
  userAgent: null,
  ip: null,
  lastUsedAt: null,
});
const stored = async (tokenHash: string) =>
  (await deps().db.execute<{ count: number }>(sql`select count(*)::int as count from sessions where token_hash = ${tokenHash}`))[0]!.count;

describe("a statement sent alongside a transaction's work", () => {
  it("is committed with it, though nothing awaited it", async () => {
    await inTransaction(deps(), async (t) => {
      await sessionsCollection.insert(t.tx, session("alongside-awaited"));
      t.alongside(sessionsCollection.insert(t.tx, session("alongside-sent")));
    });
    expect([await stored("alongside-awaited"), await stored("alongside-sent")]).toEqual([1, 1]);
  });

  it("fails the transaction when it fails, and nothing of the transaction stays", async () => {
    const attempt = inTransaction(deps(), async (t) => {
      await sessionsCollection.insert(t.tx, session("alongside-rolled-back"));
      t.alongside(t.tx.execute(sql`select 1 / 0`));
      return "done";
    });
    const failure = (await attempt.catch((error: unknown) => error)) as { cause?: { code?: string } };
    expect(failure.cause?.code).toBe("22012");
    expect(await stored("alongside-rolled-back")).toBe(0);
  });

  it("leaves no unhandled rejection when the work fails before its end", async () => {
    const attempt = inTransaction(deps(), async (t) => {
      t.alongside(t.tx.execute(sql`select 1 / 0`));
      await sessionsCollection.insert(t.tx, session("alongside-before-failure"));
      throw new Error("the work failed");
    });
    // The work's own error, or the statement after the failed one (the transaction is aborted by then).
    await expect(attempt).rejects.toThrow();
    expect(await stored("alongside-before-failure")).toBe(0);
  });

  it("counts, once the work says its writes are sent, every write made before, though none was answered yet", async () => {
    const project = (await jsonApi(() => server).must("/projects", { method: "POST", token: adminToken, json: { name: "Counted" } }, 201)) as { id: string };
    const changes = await inTransaction(deps(), async (t) => {
      // Made through a few promise steps, as nested helpers make theirs, but waiting for no answer of the database.
      const writing = (async () => {
        await Promise.resolve();
        await Promise.resolve();
        await t.tx.update(tables.projects).set({ updatedAt: new Date() }).where(eq(tables.projects.id, project.id));
      })();
      t.writesSent();
      await writing;
      return t.cacheChanges;
    });
    // The write made every cached page of observations stale: this process and the others were told.
    expect(changes).toEqual([{ kind: "observations" }]);
  });
});
