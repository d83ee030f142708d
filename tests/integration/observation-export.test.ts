import { observationsCollection, type ObservationDoc } from "@meridian/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { observationDocument } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";
import { until } from "../support/until";

const ADMIN = { email: "observation-export-admin@example.com", password: "observation export admin password" };
const ROWS = 10_000;
const OWNER_NAME = "Olga Exporter";
let server: TestServer;
let owner: Account;
let stranger: Account;
let bulky: Account;
const tricky: Record<string, string> = {};

const db = () => server.server.runtime.deps.db;
const placeOf = async (account: Account, name: string) => ({
  observatoryId: ((await must("/observatories", { method: "POST", token: account.token, json: { name } }, 201)) as { id: string }).id,
  projectId: ((await must("/projects", { method: "POST", token: account.token, json: { name } }, 201)) as { id: string }).id,
  ownerId: account.id,
});

/**
 * `count` copies of `template`, named `<prefix> <n>`, each a millisecond newer than the last. The seed runs on the
 * server's pool, whose statement timeout is a request's: 4,000 documents of 60 targets with their search grams took
 * longer than that on a loaded machine (two coverage runs), so this statement alone has none.
 */
async function copies(templateId: string, prefix: string, count: number) {
  await db().transaction(async (tx) => {
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`
    insert into observations (id, doc, created_at, updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at)
    select ${templateId} || '_' || lpad(g::text, 5, '0'), jsonb_set(doc, '{name}', to_jsonb(${prefix} || ' ' || g)),
      created_at + g * interval '1 millisecond', updated_at, project_id, observatory_id, owner_id, status, priority, status_changed_at
    from observations, generate_series(1, ${count}) g where id = ${templateId}`);
  });
}

beforeAll(async () => {
  ({ server } = await startServerWithAdmin(ADMIN));
  [owner, stranger, bulky] = await Promise.all([createAccount(server, { name: OWNER_NAME }), createAccount(server), createAccount(server)]);
  const mine = await placeOf(owner, "Export");
  const template = await observationsCollection.insert(db(), observationDocument(mine, { name: "Template", priority: 7 }));
  await copies(template.id, "Export", ROWS - 1);
  // Text a spreadsheet would run, and text CSV must quote.
  const cells: Array<[string, Partial<ObservationDoc>]> = [
    ["formula", { name: '=HYPERLINK("http://example.com/x","click")' }],
    ["plus", { name: "+1+1" }],
    ["minus", { name: "-2" }],
    ["at", { name: "@SUM(A1:A2)" }],
    ["quoted", { name: 'Field "A", north' }],
  ];
  for (const [label, fields] of cells) tricky[label] = (await observationsCollection.insert(db(), observationDocument(mine, fields))).id;
  tricky.target = (
    await observationsCollection.insert(
      db(),
      observationDocument(mine, {
        name: "Target cell",
        targets: [
          { ...observationDocument(mine).targets[0]!, name: "=cmd|' /C calc'!A0" },
          { ...observationDocument(mine).targets[0]!, name: "M 31" },
        ],
      }),
    )
  ).id;
  const theirs = await observationsCollection.insert(db(), observationDocument(await placeOf(stranger, "Theirs"), { name: "Not yours" }));
  await copies(theirs.id, "Not yours", 49);
  // Large documents (60 targets each): far more than the sockets and streams between server and client hold.
  const big = await placeOf(bulky, "Bulky");
  const target = observationDocument(big).targets[0]!;
  const targets = Array.from({ length: 60 }, (_, index) => ({ ...target, name: `Bulky target number ${index}` }));
  await copies((await observationsCollection.insert(db(), observationDocument(big, { name: "Bulky", targets }))).id, "Bulky", 3_999);
}, 120_000);
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

/** RFC 4180: fields split on commas, quoted fields with "" for a quote, records ending in CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted && char === '"' && text[index + 1] === '"') {
      field += '"';
      index += 1;
    } else if (quoted && char === '"') quoted = false;
    else if (quoted) field += char;
    else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\r" && text[index + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      index += 1;
    } else field += char;
  }
  expect({ field, record, quoted }).toEqual({ field: "", record: [], quoted: false });
  return records;
}

const exported = async (query: string, token = owner.token) => {
  const response = await server.request(`/observations/export?${query}`, { token });
  expect(response.status).toBe(200);
  return { response, text: await response.text() };
};

describe("exporting observations", () => {
  it(`sends all ${ROWS + 6} readable observations as CSV, with a header, quoting and formulas defused`, async () => {
    const { response, text } = await exported("format=csv");
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="observations-\d{4}-\d\d-\d\d\.csv"/);
    const [header, ...records] = parseCsv(text);
    expect(header).toEqual([
      "id",
      "name",
      "type",
      "status",
      "statusReason",
      "priority",
      "targets",
      "targetRaDegrees",
      "targetDecDegrees",
      "projectId",
      "projectName",
      "observatoryId",
      "observatoryName",
      "ownerId",
      "ownerName",
      "fixedTimeStart",
      "fixedTimeEnd",
      "statusChangedAt",
      "createdAt",
      "updatedAt",
    ]);
    expect(records).toHaveLength(ROWS + 6);
    expect(new Set(records.map((record) => record[0])).size).toBe(ROWS + 6);
    const column = (name: string) => header!.indexOf(name);
    expect(records.every((record) => record.length === header!.length && record[column("ownerId")] === owner.id)).toBe(true);
    // Each id beside its name; each target's coordinates beside its name.
    expect(records.every((record) => record[column("ownerName")] === OWNER_NAME && record[column("projectName")] === "Export")).toBe(true);
    expect(records.every((record) => record[column("observatoryName")] === "Export")).toBe(true);
    const byId = new Map(records.map((record) => [record[0]!, record]));
    expect(byId.get(tricky.formula!)![1]).toBe(`'=HYPERLINK("http://example.com/x","click")`);
    expect(byId.get(tricky.plus!)![1]).toBe("'+1+1");
    expect(byId.get(tricky.minus!)![1]).toBe("'-2");
    expect(byId.get(tricky.at!)![1]).toBe("'@SUM(A1:A2)");
    expect(byId.get(tricky.quoted!)![1]).toBe('Field "A", north');
    const targetCell = byId.get(tricky.target!)!;
    expect(targetCell[column("targets")]).toBe("'=cmd|' /C calc'!A0; M 31");
    // Numbers only, so a negative declination goes out as it is, without the apostrophe text starting with a minus gets.
    expect([targetCell[column("targetRaDegrees")], targetCell[column("targetDecDegrees")]]).toEqual(["78.63; 78.63", "-8.2; -8.2"]);
    // The newest first, as the list: the first page of the list is the export's beginning.
    const page = (await must("/observations?limit=200", { token: owner.token }, 200)) as { items: Array<{ id: string; name: string; priority: number }> };
    expect(records.slice(0, 200).map((record) => record[0])).toEqual(page.items.map((item) => item.id));
    expect(records.at(-1)!.slice(1, 6)).toEqual(["Template", "flexible", "pending", "", "7"]);
  });

  it("sends the same observations as a JSON array of the API's observation", async () => {
    const { response, text } = await exported("format=json");
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/filename="observations-\d{4}-\d\d-\d\d\.json"/);
    const items = JSON.parse(text) as Array<{ id: string; name: string; ownerId: string; targets: Array<{ name: string }> }>;
    expect(items).toHaveLength(ROWS + 6);
    expect(items.every((item) => item.ownerId === owner.id)).toBe(true);
    const one = (await must(`/observations/${tricky.target}`, { token: owner.token }, 200)) as Record<string, unknown>;
    expect(items.find((item) => item.id === tricky.target)).toEqual(one);
    expect(items.find((item) => item.name === "Export 5000")).toMatchObject({ priority: 7, status: "pending" });
  });

  it("applies the list's filters and sort", async () => {
    const { text } = await exported("format=json&q=export%2099&sort=createdAt");
    const names = (JSON.parse(text) as Array<{ name: string }>).map((item) => item.name);
    const numbers = Array.from({ length: ROWS - 1 }, (_, index) => index + 1).filter((number) => String(number).startsWith("99"));
    expect(names).toEqual(numbers.map((number) => `Export ${number}`));
    expect(names).toHaveLength(111);
    const csv = parseCsv((await exported("q=field&status=pending,paused")).text);
    expect(csv.slice(1).map((record) => record[0])).toEqual([tricky.quoted]);
    expect(parseCsv((await exported("status=completed")).text)).toHaveLength(1);
  });

  it("leaves out what the caller may not read", async () => {
    expect((JSON.parse((await exported("format=json&q=not%20yours")).text) as unknown[]).length).toBe(0);
    const theirs = JSON.parse((await exported("format=json", stranger.token)).text) as Array<{ ownerId: string }>;
    expect(theirs).toHaveLength(50);
    expect(theirs.every((item) => item.ownerId === stranger.id)).toBe(true);
  });

  it("stops reading the database when the client goes away", async () => {
    const running = async () =>
      (
        await db().execute<{ state: string }>(sql`
          select state from pg_stat_activity where query like '/* observation export */%' and pid <> pg_backend_pid() and state <> 'idle'`)
      ).length;
    const response = await server.request("/observations/export?format=json", { token: bulky.token });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    // The client reads no more: the server waits on the socket, its cursor open at the database.
    await until("the export's cursor to wait for the client", async () => (await running()) === 1);
    await reader.cancel();
    await until("the export's cursor to be closed", async () => (await running()) === 0);
    // Its connection went back to the pool in working order.
    expect((await exported("format=json&q=export%209999")).text).toContain('"name":"Export 9999"');
  });
});

describe("refusals of the export", () => {
  it("refuses an unknown format, sort or status with 400 VALIDATION_FAILED", async () => {
    for (const [query, path] of [
      ["format=xml", "format"],
      ["sort=-name", "sort"],
      ["status=done", "status.0"],
    ]) {
      const problem = await expectProblem(await server.request(`/observations/export?${query}`, { token: owner.token }), 400, "VALIDATION_FAILED");
      expect(problem.errors?.map((error) => error.path)).toContain(path);
    }
  });

  it("answers 401 before it looks at the query", async () => {
    await expectProblem(await server.request("/observations/export?format=xml"), 401, "UNAUTHENTICATED");
  });
});

describeAuthSuite(() => server, {
  method: "GET",
  path: "/observations/export",
  prepare: () => ({ path: "/observations/export?format=csv" }),
  success: 200,
});
