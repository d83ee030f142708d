import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";

let sql: postgres.Sql;
beforeAll(async () => {
  sql = postgres((await createTestDatabase()).url, { max: 1, onnotice: () => undefined });
});
afterAll(() => sql?.end());

/**
 * Backups read every collection with COPY TO STDOUT, one after another on one connection. The
 * driver pauses its socket when a COPY stream's buffer is full; when the whole COPY arrived in
 * that same chunk the stream ends without ever reading again, and unpatched postgres.js 3.4.9
 * left the socket paused: the next statement's reply never came (porsager/postgres#499).
 * patches/postgres@3.4.9.patch resumes it when the COPY ends.
 */
describe("COPY streams on one connection (patched postgres.js)", () => {
  it("answers the next statement after a COPY whose rows overflowed the stream's buffer in one chunk", async () => {
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      for (let round = 0; round < 5; round += 1) {
        // About 40 KB: more than the stream's 16 KB buffer, less than one socket read.
        const rows = await tx`copy (select repeat('x', 200) from generate_series(1, 200)) to stdout`.readable();
        let bytes = 0;
        for await (const chunk of rows as AsyncIterable<Buffer>) bytes += chunk.length;
        expect(bytes).toBe(201 * 200);
        const [next] = await tx<Array<{ round: number }>>`select ${round}::int as round`;
        expect(next!.round).toBe(round);
      }
    });
  });
});
