import { sessionsCollection, type SessionDoc } from "@meridian/db";
import { inTransaction } from "@meridian/domain";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

// A statement sent alongside (an event's insert) costs no round trip of its own, and is still part of its transaction.
const ADMIN = { email: "alongside-admin@example.com", password: "alongside admin password" };
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
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
});
