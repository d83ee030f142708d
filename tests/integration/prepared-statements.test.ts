import { connectDatabase, tables, type DatabaseHandle } from "@meridian/db";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";

// drizzle asks postgres.js for unprepared queries, which cost two round trips each (packages/db/src/prepared-statements.ts).
let database: DatabaseHandle;
beforeAll(async () => {
  database = connectDatabase((await createTestDatabase()).url, { max: 1 });
});
afterAll(() => database?.close());

/** The statements prepared on the session of the transaction's connection, by their text. */
async function preparedOn(tx: Parameters<Parameters<DatabaseHandle["db"]["transaction"]>[0]>[0], fragment: string) {
  const rows = await tx.execute<{ statement: string }>(sql`select statement from pg_prepared_statements where statement like ${`%${fragment}%`}`);
  return rows.map((row) => row.statement);
}

describe("drizzle's queries", () => {
  it("run as prepared statements, in transactions and savepoints too, and come back the same", async () => {
    await database.db.transaction(async (tx) => {
      const marker = "prepared_statements_test_marker";
      const first = await tx.execute<{ value: string }>(sql`select ${"one"}::text as value, ${marker}::text as marker`);
      const second = await tx.execute<{ value: string }>(sql`select ${"two"}::text as value, ${marker}::text as marker`);
      expect([first[0]!.value, second[0]!.value]).toEqual(["one", "two"]);
      // Prepared once on this connection, run twice.
      expect(await preparedOn(tx, "as marker")).toHaveLength(1);

      await tx.transaction(async (savepoint) => {
        await savepoint.select({ id: tables.settings.id }).from(tables.settings).where(eq(tables.settings.id, "prepared-in-savepoint"));
      });
      expect(await preparedOn(tx, `"settings"."id" = $1`)).toHaveLength(1);
    });
  });

  it("leave a statement with many parameters unprepared, so that the lengths of a list do not pile up on the server", async () => {
    await database.db.transaction(async (tx) => {
      const ids = Array.from({ length: 40 }, (_, index) => `many-${index}`);
      expect(await tx.select({ id: tables.settings.id }).from(tables.settings).where(inArray(tables.settings.id, ids))).toEqual([]);
      expect(await preparedOn(tx, `"settings"."id" in ($1, $2`)).toEqual([]);
    });
  });

  it("fail as before on bad input, and the connection goes on", async () => {
    await expect(database.db.execute(sql`select ${"not a number"}::int`)).rejects.toMatchObject({
      cause: { code: "22P02", message: expect.stringMatching(/invalid input syntax/) as unknown },
    });
    expect(await database.db.execute<{ sum: number }>(sql`select ${2}::int + ${3}::int as sum`)).toEqual([{ sum: 5 }]);
  });
});
