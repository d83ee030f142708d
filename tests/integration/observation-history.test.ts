import { observationHistoryCollection, type ObservationHistoryDoc } from "@meridian/db";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { observationCast } from "../support/observation-cast";
import { deleteRows, expectCursorRefused, expectTrpcCursorRefused, foreignCursors, trpcQuery } from "../support/list-cursors";
import type { TestServer } from "../support/test-server";

/**
 * `GET /observations/{id}/history` in cursor pages: a long-lived monitoring observation passes any fixed cut, and its
 * newest moves, the ones people look at, must stay reachable. Long histories are written straight into the collection.
 */
const ADMIN = { email: "observation-history-admin@example.com", password: "observation history admin password" };
let server: TestServer;
let owner: Account;
let member: Account;
let viewer: Account;
let stranger: Account;
let observatoryId: string;
let projectId: string;
let observatoryKey: string;
beforeAll(async () => {
  // No worker and no plugin: nothing moves an observation behind the tests' backs.
  ({ server } = await startServerWithAdmin(ADMIN));
  ({
    owner,
    member,
    viewer,
    stranger,
    observatoryId,
    projectId,
    key: observatoryKey,
  } = await observationCast(server, { observatory: "Long watch", project: "Variables" }));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

interface Entry {
  id: string;
  from: string | null;
  to: string;
  at: string;
  actor: { kind: string; id: string; name?: string | null };
  reason: string | null;
  clonedFromId?: string | null;
}
interface Page {
  items: Entry[];
  nextCursor: string | null;
}

const target = { name: "RR Lyr", ra: 291.37, dec: 42.78, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] };
const submit = async () =>
  (
    (await must(
      "/observations",
      { method: "POST", token: owner.token, json: { name: "RR Lyr cadence", type: "monitoring", projectId, observatoryId, targets: [target] } },
      201,
    )) as { id: string }
  ).id;
const pause = (id: string) => must(`/observations/${id}/pause`, { method: "POST", token: owner.token, json: { reason: "clouds" } }, 200);
const resume = (id: string) => must(`/observations/${id}/resume`, { method: "POST", token: owner.token }, 200);

/**
 * `count` moves of a monitoring cadence, pending → assigned → pending…, written in one statement: they share its moment,
 * so their order (and the pages' edges among them) is the ids'.
 */
async function writeMoves(observationId: string, count: number, label: string) {
  const statuses = ["pending", "assigned"] as const;
  const docs: ObservationHistoryDoc[] = Array.from({ length: count }, (_, index) => ({
    observationId,
    from: statuses[index % 2]!,
    to: statuses[(index + 1) % 2]!,
    at: new Date().toISOString(),
    actor: { kind: "system", id: "dispatch" },
    reason: `${label} ${index}`,
  }));
  await observationHistoryCollection.insertMany(server.server.runtime.deps.db, docs);
}

/** The entries' ids in the order the database keeps them: recorded moment, then id. */
async function storedIds(observationId: string): Promise<string[]> {
  const sql = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    const rows = await sql<Array<{ id: string }>>`select id from observation_history where observation_id = ${observationId} order by created_at, id`;
    return rows.map((row) => row.id);
  } finally {
    await sql.end();
  }
}

const path = (id: string, query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
  return `/observations/${id}/history${search ? `?${search}` : ""}`;
};

/** Every page from the first, following `nextCursor` until it is null. */
async function walk(id: string, query: Record<string, string | number> = {}, token = owner.token) {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const page = (await must(path(id, cursor ? { ...query, cursor } : query), { token }, 200)) as Page;
    // A page says whether more remain, even when none do.
    expect(page).toHaveProperty("nextCursor");
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return pages;
}
const idsOf = (pages: Page[]) => pages.flatMap((page) => page.items.map((item) => item.id));

describe("an observation's history in pages", { timeout: 120_000 }, () => {
  it("walks a history past 10,000 moves oldest first in pages of 1,000, every move once, the newest last", async () => {
    const id = await submit();
    // Moves on many moments: real ones between statements of thousands of cadence moves each.
    await writeMoves(id, 3_500, "first");
    await pause(id);
    await resume(id);
    await writeMoves(id, 3_500, "second");
    await writeMoves(id, 3_500, "third");
    await pause(id);
    const stored = await storedIds(id);
    expect(stored).toHaveLength(10_504);

    const pages = await walk(id);
    expect(pages.map((page) => page.items.length)).toEqual([...Array.from({ length: 10 }, () => 1_000), 504]);
    expect(pages.slice(0, -1).every((page) => page.nextCursor !== null)).toBe(true);
    const walked = idsOf(pages);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked).toEqual(stored);
    const all = pages.flatMap((page) => page.items);
    expect(all[0]).toMatchObject({ from: null, to: "pending", actor: { kind: "user", id: owner.id } });
    expect(all.at(-1)).toMatchObject({ from: "pending", to: "paused", reason: "clouds", actor: { kind: "user", id: owner.id } });

    // Newest first (extension): the same moves the other way, the newest on the first page.
    const newest = await walk(id, { order: "desc" });
    expect(newest[0]!.items[0]).toEqual(all.at(-1));
    expect(idsOf(newest)).toEqual([...stored].reverse());
  });

  it("pages by `limit` both ways, through REST and tRPC alike, and a short history comes whole", async () => {
    const id = await submit();
    await pause(id);
    await resume(id);
    await writeMoves(id, 5, "cadence");
    await pause(id);
    const stored = await storedIds(id);
    expect(stored).toHaveLength(9);

    // A client that reads only `items` still gets an ordinary observation's moves whole.
    expect(await must(path(id), { token: owner.token }, 200)).toEqual({ items: expect.any(Array), nextCursor: null });
    expect(((await must(path(id), { token: owner.token }, 200)) as Page).items.map((item) => item.id)).toEqual(stored);

    for (const limit of [1, 2, 4, 9]) {
      const pages = await walk(id, { limit });
      expect(pages.map((page) => page.items.length)).toEqual(Array.from({ length: Math.ceil(9 / limit) }, (_, at) => Math.min(limit, 9 - at * limit)));
      expect(idsOf(pages)).toEqual(stored);
      expect(idsOf(await walk(id, { limit, order: "desc" }))).toEqual([...stored].reverse());
    }

    // The SPA's way: tRPC, newest first, with the cursor its infinite query sends (null first).
    const viaTrpc: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await trpcData<Page>(
        await server.request(trpcQuery("observations.history", { id, order: "desc", limit: 4, cursor, direction: "forward" }), { token: viewer.token }),
      );
      expect(page).toHaveProperty("nextCursor");
      viaTrpc.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(viaTrpc).toEqual([...stored].reverse());
  });

  it("goes on past an entry deleted since its page was read", async () => {
    const id = await submit();
    await writeMoves(id, 6, "cadence");
    const stored = await storedIds(id);
    for (const order of ["asc", "desc"] as const) {
      const inOrder = order === "asc" ? stored : [...stored].reverse();
      const first = (await must(path(id, { limit: 3, order }), { token: owner.token }, 200)) as Page;
      expect(first.items.map((item) => item.id)).toEqual(inOrder.slice(0, 3));
      // The entry the cursor was made from is gone (a cleanup, a restore) before the next page is read.
      await deleteRows(server.databaseUrl, "observation_history", [first.items[2]!.id]);
      const second = (await must(path(id, { limit: 3, order, cursor: first.nextCursor! }), { token: owner.token }, 200)) as Page;
      expect(second.items.map((item) => item.id)).toEqual(inOrder.slice(3, 6));
      stored.splice(stored.indexOf(first.items[2]!.id), 1);
    }
  });

  it("refuses a cursor no page gave, another order's, and a limit out of bounds (400)", async () => {
    const id = await submit();
    await writeMoves(id, 3, "cadence");
    const oldest = (await must(path(id, { limit: 1 }), { token: owner.token }, 200)) as Page;
    const newest = (await must(path(id, { limit: 1, order: "desc" }), { token: owner.token }, 200)) as Page;
    // An observatory history's cursor is another list's too.
    const observatoryPage = (await must(`/observatories/${observatoryId}/history?limit=1`, { token: owner.token }, 200)) as Page;
    expect(observatoryPage.nextCursor).not.toBeNull();
    const refused: Array<[string, string | undefined]> = [
      ...foreignCursors.map((cursor): [string, undefined] => [cursor, undefined]),
      [oldest.items[0]!.id, undefined],
      [observatoryPage.nextCursor!, undefined],
      [oldest.nextCursor!, "desc"],
      [newest.nextCursor!, "asc"],
      [newest.nextCursor!, undefined],
    ];
    for (const [cursor, order] of refused) {
      await expectCursorRefused(await server.request(path(id, order ? { cursor, order } : { cursor }), { token: owner.token }));
      await expectTrpcCursorRefused(
        await server.request(trpcQuery("observations.history", { id, cursor, ...(order ? { order } : {}) }), { token: owner.token }),
      );
    }
    for (const limit of ["0", "-1", "1001", "1.5", "many"]) {
      const problem = await expectProblem(await server.request(path(id, { limit }), { token: owner.token }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toEqual(["limit"]);
    }
    const problem = await expectProblem(await server.request(path(id, { order: "newest" }), { token: owner.token }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toEqual(["order"]);
    expect(((await must(path(id, { limit: 1000 }), { token: owner.token }, 200)) as Page).items).toHaveLength(4);
  });

  it("names who moved it to those who may list its project's or observatory's members, and links a clone's first entry to its source", async () => {
    const id = await submit();
    await pause(id);
    const clone = (await must(`/observations/${id}/clone`, { method: "POST", token: owner.token, json: {} }, 201)) as { id: string };
    const { name } = (await must("/api/v1/user/profile", { token: owner.token }, 200)) as { name: string };
    const byOwner = { kind: "user", id: owner.id, name };
    // The owner of both, a member of the project only, a viewer of the observatory only: each may list some members.
    for (const reader of [owner, member, viewer]) {
      const moves = ((await must(path(id), { token: reader.token }, 200)) as Page).items;
      expect(moves.map((move) => [move.to, move.actor, move.clonedFromId])).toEqual([
        ["pending", byOwner, null],
        ["paused", byOwner, null],
      ]);
      const [first] = ((await must(path(clone.id), { token: reader.token }, 200)) as Page).items;
      expect(first).toMatchObject({ from: null, to: "pending", actor: byOwner, reason: `cloned from ${id}`, clonedFromId: id });
    }

    // Its own submitter, no longer in the project nor at the observatory, still reads it, but lists no members: no names.
    const leaver = await createAccount(server);
    await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: leaver.email, role: "member" } }, 201);
    await must(
      `/observatories/${observatoryId}/members`,
      { method: "POST", token: owner.token, json: { email: leaver.email, permissions: { can_observe: true } } },
      201,
    );
    const own = (await must(
      "/observations",
      { method: "POST", token: leaver.token, json: { name: "Own", projectId, observatoryId, targets: [target] } },
      201,
    )) as {
      id: string;
    };
    await must(`/projects/${projectId}/members/${leaver.id}`, { method: "DELETE", token: owner.token }, 204);
    await must(`/observatories/${observatoryId}/members/${leaver.id}`, { method: "DELETE", token: owner.token }, 204);
    const [submitted] = ((await must(path(own.id), { token: leaver.token }, 200)) as Page).items;
    expect(submitted).toMatchObject({ actor: { kind: "user", id: leaver.id, name: null }, clonedFromId: null });
    expect(((await must(path(own.id), { token: owner.token }, 200)) as Page).items[0]!.actor.name).toEqual(expect.any(String));
  });

  it("lets those who may read the observation page through it, and nobody else, whatever the cursor", async () => {
    const id = await submit();
    await writeMoves(id, 4, "cadence");
    const stored = await storedIds(id);
    const first = (await must(path(id, { limit: 2 }), { token: owner.token }, 200)) as Page;
    for (const reader of [member, viewer]) expect(idsOf(await walk(id, { limit: 2 }, reader.token))).toEqual(stored);

    const queries: Array<Record<string, string | number>> = [{}, { limit: 2 }, { cursor: first.nextCursor! }, { cursor: "garbage" }];
    for (const query of queries) {
      await expectProblem(await server.request(path(id, query)), 401, "UNAUTHENTICATED");
      await expectProblem(await server.request(path(id, query), { token: stranger.token }), 404, "NOT_FOUND");
      await expectProblem(await server.request(path(id, query), { token: observatoryKey }), 403, "FORBIDDEN");
    }
    await expectProblem(await server.request(path("obs_missing", { cursor: first.nextCursor! }), { token: owner.token }), 404, "NOT_FOUND");
    const trpcStranger = await server.request(trpcQuery("observations.history", { id, cursor: first.nextCursor }), { token: stranger.token });
    expect(trpcStranger.status).toBe(404);
    const trpcAnonymous = await server.request(trpcQuery("observations.history", { id }));
    expect(trpcAnonymous.status).toBe(401);
  });
});
