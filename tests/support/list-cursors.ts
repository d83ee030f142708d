import postgres from "postgres";
import { expect } from "vitest";
import { expectProblem } from "./auth-suite";

/**
 * Deletes rows behind the server's back, as a retention cleanup or a restore would between two
 * page reads of a list: what a cursor made from one of them must still lead on.
 */
export async function deleteRows(databaseUrl: string, table: string, ids: string[]): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const deleted = await sql`delete from ${sql(table)} where id in ${sql(ids)}`;
    expect(deleted.count).toBe(ids.length);
  } finally {
    await sql.end();
  }
}

/** Cursors no list gave: not base64url JSON, JSON of the wrong shape, an id alone (the old cursors), another list's shape. */
export const foreignCursors = [
  "garbage",
  "0",
  Buffer.from(JSON.stringify({ id: "x" })).toString("base64url"),
  Buffer.from(JSON.stringify(["elsewhere", "2026-01-01T00:00:00.000000Z", "row_1"])).toString("base64url"),
];

/** A list's answer to a cursor it never gave: 400 VALIDATION_FAILED naming `cursor`, never a page. */
export async function expectCursorRefused(response: Response): Promise<void> {
  const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
  expect(problem.errors?.map((error) => error.path)).toEqual(["cursor"]);
}

/** The same refusal through tRPC, where the SPA pages (`error.data` carries the code and the fields). */
export async function expectTrpcCursorRefused(response: Response): Promise<void> {
  const body = (await response.json()) as { error?: { data?: { code?: string; errors?: Array<{ path: string }> } } };
  expect({ status: response.status, code: body.error?.data?.code, paths: body.error?.data?.errors?.map((error) => error.path) }).toEqual({
    status: 400,
    code: "VALIDATION_FAILED",
    paths: ["cursor"],
  });
}

/** A tRPC query's request path, its input as JSON in `?input=`. */
export const trpcQuery = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
