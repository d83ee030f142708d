import { observationsCollection, type ObservationDoc } from "@meridian/db";
import type { ObservationStatus } from "@meridian/rules";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin, trpcData } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";

const ADMIN = { email: "observation-search-admin@example.com", password: "observation search admin password" };
let server: TestServer;
let owner: Account;
let colleague: Account;
let stranger: Account;
let projectId: string;
let observatoryId: string;
/** What the owner may read, as stored: the expected answers are computed from these. */
const readable: Array<{
  id: string;
  name: string;
  targets: string[];
  status: ObservationStatus;
  priority: number;
  createdAt: string;
  statusChangedAt: string;
  ownerId: string;
}> = [];
let strangersId: string;

const statuses: ObservationStatus[] = ["pending", "paused", "completed", "failed", "cancelled"];
const BASE = Date.parse("2026-10-01T00:00:00.000Z");
const at = (minutes: number, micros = 0) => new Date(BASE + minutes * 60_000).toISOString().replace("Z", `${String(micros).padStart(3, "0")}Z`);

async function insert(fields: Partial<ObservationDoc> & Pick<ObservationDoc, "ownerId" | "projectId" | "observatoryId">, createdAt: string) {
  const db = server.server.runtime.deps.db;
  const stored = await observationsCollection.insert(db, observationDocument(fields, fields));
  // Microseconds on purpose: a cursor rounded to milliseconds would skip or repeat these.
  await db.execute(sql`update observations set created_at = ${createdAt}::timestamptz where id = ${stored.id}`);
  return stored.id;
}

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  [owner, colleague, stranger] = await Promise.all([createAccount(server), createAccount(server), createAccount(server)]);
  observatoryId = ((await must("/observatories", { method: "POST", token: owner.token, json: { name: "Search scope" } }, 201)) as { id: string }).id;
  projectId = ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Search" } }, 201)) as { id: string }).id;
  await must(`/projects/${projectId}/members`, { method: "POST", token: owner.token, json: { email: colleague.email, role: "member" } }, 201);
  const place = { projectId, observatoryId };
  for (let index = 0; index < 40; index += 1) {
    const ownerId = index % 4 === 3 ? colleague.id : owner.id;
    const name = index % 5 === 0 ? `Deep Field ${index}` : `Survey ${index}`;
    const targets = index % 3 === 0 ? ["M31", `Orion Nebula ${index}`] : [`NGC ${1000 + index}`];
    const status = statuses[index % statuses.length]!;
    const priority = 1 + ((index * 7) % 10);
    // Two of each three share their creation time exactly (ties go by id); the third is 250 µs later, within the same millisecond.
    const createdAt = at(Math.floor(index / 3) * 10, index % 3 === 2 ? 250 : 0);
    const statusChangedAt = new Date(BASE + ((index * 13) % 17) * 3_600_000).toISOString();
    const id = await insert(
      {
        ...place,
        ownerId,
        name,
        status,
        priority,
        statusChangedAt,
        targets: targets.map((target) => ({ ...observationDocument({ ...place, ownerId }).targets[0]!, name: target })),
      },
      createdAt,
    );
    readable.push({ id, name, targets, status, priority, createdAt, statusChangedAt, ownerId });
  }
  // The stranger's own: same words, never in the owner's answers.
  const theirs = {
    observatoryId: ((await must("/observatories", { method: "POST", token: stranger.token, json: { name: "Theirs" } }, 201)) as { id: string }).id,
    projectId: ((await must("/projects", { method: "POST", token: stranger.token, json: { name: "Theirs" } }, 201)) as { id: string }).id,
    ownerId: stranger.id,
  };
  strangersId = await insert({ ...theirs, name: "Deep Field of a stranger" }, at(5));
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

type Item = { id: string; name: string; priority: number; createdAt: string; statusChangedAt: string; status: string; ownerId: string };
type Page = { items: Item[]; nextCursor: string | null };

/** Every page of the list for `query` (`limit` each), following the cursors. */
async function allPages(query: string, limit: number, token = owner.token) {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = (await must(`/observations?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { token }, 200)) as Page;
    items.push(...page.items);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor && pages < 100);
  return { ids: items.map((item) => item.id), pages };
}

const byKey = (key: "createdAt" | "priority" | "statusChangedAt", descending: boolean) => (a: (typeof readable)[number], b: (typeof readable)[number]) => {
  const [left, right] = key === "priority" ? [a.priority, b.priority] : [Date.parse(a[key]), Date.parse(b[key])];
  // Microseconds beyond the millisecond: the ISO strings sort as the times do.
  const order = left !== right ? left - right : key === "createdAt" ? a.createdAt.localeCompare(b.createdAt) : 0;
  const tie = order !== 0 ? order : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return descending ? -tie : tie;
};
const expected = (filter: (row: (typeof readable)[number]) => boolean, sort = "-createdAt") => {
  const descending = sort.startsWith("-");
  return readable
    .filter(filter)
    .sort(byKey(sort.replace("-", "") as "createdAt", descending))
    .map((row) => row.id);
};

describe("sorting and paging the observation list", () => {
  it("is newest first by default, ties by id, over every page", async () => {
    const { ids, pages } = await allPages("", 7);
    expect(ids).toEqual(expected(() => true));
    expect(pages).toBe(Math.ceil(readable.length / 7));
  });

  for (const sort of ["createdAt", "-createdAt", "priority", "-priority", "statusChangedAt", "-statusChangedAt"])
    it(`pages by ${sort} without a gap or a repeat, alone and with a filter`, async () => {
      expect((await allPages(`sort=${sort}`, 6)).ids).toEqual(expected(() => true, sort));
      expect((await allPages(`sort=${sort}&status=pending,completed`, 4)).ids).toEqual(
        expected((row) => row.status === "pending" || row.status === "completed", sort),
      );
    });

  it("shows the order on the first page: the highest priority first with -priority", async () => {
    const page = (await must("/observations?sort=-priority&limit=5", { token: owner.token }, 200)) as Page;
    expect(page.items.map((item) => item.priority)).toEqual([10, 10, 10, 10, 9]);
  });
});

describe("filtering the observation list", () => {
  it("finds a part of the name in any case", async () => {
    expect((await allPages("q=dEEp%20fIeLd", 50)).ids).toEqual(expected((row) => row.name.startsWith("Deep Field")));
  });

  it("finds a part of any target's name, the second target's too", async () => {
    expect((await allPages("q=orion%20NEB", 50)).ids).toEqual(expected((row) => row.targets.some((target) => target.startsWith("Orion Nebula"))));
    expect((await allPages("q=ngc%20101", 50)).ids).toEqual(expected((row) => row.targets.some((target) => target.startsWith("NGC 101"))));
  });

  it("finds accented letters in any case, in long and short searches", async () => {
    const id = await insert({ projectId, observatoryId, ownerId: owner.id, name: "Étoile filante de Zoé" }, at(-100));
    for (const q of ["éTOILE fil", "ÉTOILE", "zoÉ", "É", "Oé"]) expect((await allPages(`q=${encodeURIComponent(q)}`, 50)).ids, q).toEqual([id]);
    await server.server.runtime.deps.db.execute(sql`delete from observations where id = ${id}`);
  });

  it("takes % and _ in the words as themselves", async () => {
    const id = await insert({ projectId, observatoryId, ownerId: owner.id, name: "Flat 100% _dark_" }, at(-100));
    expect((await allPages("q=100%25%20_d", 50)).ids).toEqual([id]);
    expect((await allPages("q=1_0", 50)).ids).toEqual([]);
    await server.server.runtime.deps.db.execute(sql`delete from observations where id = ${id}`);
  });

  it("takes several statuses, a creation range, an owner, and combines them", async () => {
    expect((await allPages("status=failed,paused", 50)).ids).toEqual(expected((row) => row.status === "failed" || row.status === "paused"));
    expect((await allPages("status=cancelled", 50)).ids).toEqual(expected((row) => row.status === "cancelled"));
    const from = at(50);
    const to = at(120);
    expect((await allPages(`from=${from}&to=${to}`, 50)).ids).toEqual(expected((row) => row.createdAt >= from && row.createdAt < to));
    expect((await allPages("to=2026-10-01", 50)).ids).toEqual([]);
    expect((await allPages("from=2026-10-01&to=2026-10-02", 50)).ids).toEqual(expected(() => true));
    expect((await allPages(`ownerId=${colleague.id}`, 50)).ids).toEqual(expected((row) => row.ownerId === colleague.id));
    expect((await allPages(`ownerId=${colleague.id}&status=pending,failed,paused&q=survey&sort=priority`, 3)).ids).toEqual(
      expected((row) => row.ownerId === colleague.id && ["pending", "failed", "paused"].includes(row.status) && row.name.startsWith("Survey"), "priority"),
    );
  });

  it("never shows what the caller may not read, whatever the filter", async () => {
    expect((await allPages("q=stranger", 50)).ids).toEqual([]);
    expect((await allPages(`ownerId=${stranger.id}`, 50)).ids).toEqual([]);
    expect((await allPages("q=stranger", 50, stranger.token)).ids).toEqual([strangersId]);
    // A project member reads the project's observations, and the filters apply the same.
    expect((await allPages("q=deep", 50, colleague.token)).ids).toEqual(expected((row) => row.name.startsWith("Deep Field")));
  });

  it("answers the same through tRPC", async () => {
    const input = encodeURIComponent(JSON.stringify({ q: "orion", status: "pending,paused", sort: "priority", limit: 100 }));
    const page = await trpcData<Page>(await server.request(`/trpc/observations.list?input=${input}`, { token: owner.token }));
    expect(page.items.map((item) => item.id)).toEqual(
      expected((row) => row.targets.some((target) => target.startsWith("Orion")) && (row.status === "pending" || row.status === "paused"), "priority"),
    );
  });

  it("finds one or two characters anywhere in the name or a target's name, in any case", async () => {
    const holds = (piece: string) => (row: (typeof readable)[number]) => [row.name, ...row.targets].some((text) => text.toLowerCase().includes(piece));
    for (const q of ["m3", "M", "f", "9", "ld", "31", "Y "]) {
      expect((await allPages(`q=${encodeURIComponent(q)}`, 50)).ids, q).toEqual(expected(holds(q.toLowerCase())));
    }
    expect((await allPages("q=qx", 50)).ids).toEqual([]);
    expect((await allPages("q=%25", 50)).ids).toEqual([]);
  });

  it("keeps as pieces every character and every pair of neighbours of the lower-cased names, line breaks included", async () => {
    const db = server.server.runtime.deps.db;
    const [place] = await db.execute<{ project_id: string; observatory_id: string; owner_id: string }>(
      sql`select project_id, observatory_id, owner_id from observations limit 1`,
    );
    const target = observationDocument({ projectId: place!.project_id, observatoryId: place!.observatory_id, ownerId: place!.owner_id }).targets[0]!;
    const names = ["Ab Çé", ...Array.from({ length: 40 }, (_, index) => `Target Ü${index}`)];
    const doc = observationDocument(
      { projectId: place!.project_id, observatoryId: place!.observatory_id, ownerId: place!.owner_id },
      { name: names[0]!, targets: names.slice(1).map((name) => ({ ...target, name })) },
    );
    const { id } = await observationsCollection.insert(db, doc);
    try {
      const characters = Array.from(names.join("\n").toLowerCase());
      const pieces = new Set(
        characters.flatMap((character, index) => (index + 1 < characters.length ? [character, character + characters[index + 1]] : [character])),
      );
      const [row] = await db.execute<{ grams: string[] }>(sql`select search_grams as grams from observations where id = ${id}`);
      expect(new Set(row!.grams)).toEqual(pieces);
      expect(row!.grams).toHaveLength(pieces.size);
    } finally {
      await db.execute(sql`delete from observations where id = ${id}`);
    }
  });

  it("searches through the trigram index, and one or two characters through their pieces' index", async () => {
    const db = server.server.runtime.deps.db;
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return tx.execute<{ "QUERY PLAN": string }>(sql`explain select id from observations where search_text ilike '%orion neb%'`);
    });
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("observations_search_idx");
    const shortPlan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return tx.execute<{ "QUERY PLAN": string }>(sql`explain select id from observations where search_grams @> array['qx']`);
    });
    expect(shortPlan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("observations_search_grams_idx");
  });
});

describe("refusals of the observation list", () => {
  const refused: Array<[string, string, string]> = [
    ["an unknown sort", "sort=name", "sort"],
    ["an unknown status among several", "status=pending,asleep", "status.1"],
    ["an empty status", "status=", "status.0"],
    ["a date that is not one", "from=yesterday", "from"],
    // ISO's year 0000 (1 BC) parses, but PostgreSQL's timestamptz refuses it: a 400, not the query's 500.
    ["a moment in year 0000", "from=0000-01-01T00:00:00Z", "from"],
    ["a day in year 0000", "to=0000-06-01", "to"],
    ["a search with a control character", "q=a%01b", "q"],
    ["a search too long", `q=${"x".repeat(201)}`, "q"],
  ];
  for (const [what, query, path] of refused)
    it(`refuses ${what} with 400 VALIDATION_FAILED`, async () => {
      const problem = await expectProblem(await server.request(`/observations?${query}`, { token: owner.token }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toContain(path);
    });

  it("refuses a cursor given for another sort, or made up", async () => {
    const page = (await must("/observations?sort=priority&limit=2", { token: owner.token }, 200)) as Page;
    const other = await expectProblem(
      await server.request(`/observations?sort=-createdAt&cursor=${page.nextCursor}`, { token: owner.token }),
      400,
      "VALIDATION_FAILED",
    );
    expect(other.errors?.map((error) => error.path)).toEqual(["cursor"]);
    await expectProblem(await server.request(`/observations?cursor=${readable[0]!.id}`, { token: owner.token }), 400, "VALIDATION_FAILED");
  });

  it("answers 401 before it looks at the filters", async () => {
    await expectProblem(await server.request("/observations?sort=name&status=asleep"), 401, "UNAUTHENTICATED");
  });
});

describeAuthSuite(() => server, {
  method: "GET",
  path: "/observations?q&status&sort",
  prepare: () => ({ path: "/observations?q=deep&status=pending,paused&sort=-priority&from=2026-01-01" }),
  success: 200,
});
