import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

/**
 * Refusals of the system announcement paths. This file creates users only: no observatory,
 * organization or project exists, so targets naming "all" of those reach nobody.
 */
const ADMIN = { email: "motd-errors-admin@example.com", password: "motd errors admin password" };
let server: TestServer;
let adminToken: string;
let alice: Account;
let bob: Account;
let existing: { id: string };
beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN));
  alice = await createAccount(server);
  bob = await createAccount(server);
  existing = await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: valid({ users: { ids: [alice.id, bob.id] } }) }, 201);
});
afterAll(() => server?.stop());
const { must } = jsonApi(() => server);

const valid = (targets: Record<string, unknown> = { users: { ids: [alice.id] } }) => ({
  title: "Maintenance",
  message: "Back soon",
  severity: "info",
  deliveryType: "message",
  targets,
});
/** Rows in the announcement tables, read from the database: a refusal must leave them as they were. */
const stored = async () => {
  const [row] = await server.server.runtime.deps.sql<Array<{ announcements: number; recipients: number }>>`
    select (select count(*)::int from announcements) as announcements, (select count(*)::int from announcement_recipients) as recipients`;
  return row!;
};
const post = (json: unknown, token = adminToken) => server.request("/api/v1/system/motd", { method: "POST", token, json });
const postRaw = (body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  server.request("/api/v1/system/motd", { method: "POST", token: adminToken, body, headers });

type Route = { method: "GET" | "POST" | "DELETE"; path: () => string; json?: () => unknown };
const systemRoutes: Array<[string, Route]> = [
  ["POST /api/v1/system/motd", { method: "POST", path: () => "/api/v1/system/motd", json: () => valid() }],
  ["GET /api/v1/system/motd", { method: "GET", path: () => "/api/v1/system/motd" }],
  ["POST /api/v1/system/motd/preview", { method: "POST", path: () => "/api/v1/system/motd/preview", json: () => ({ targets: { users: { all: true } } }) }],
  ["GET /api/v1/system/motd/target-options", { method: "GET", path: () => "/api/v1/system/motd/target-options?kind=users" }],
  ["DELETE /api/v1/system/motd/{id}", { method: "DELETE", path: () => `/api/v1/system/motd/${existing.id}`, json: () => ({ reason: "Not wanted" }) }],
  ["GET /api/v1/system/motd/{id}/recipients", { method: "GET", path: () => `/api/v1/system/motd/${existing.id}/recipients` }],
];
const allRoutes: Array<[string, Route]> = [
  ...systemRoutes,
  ["POST /api/v1/system/motd/{id}/acknowledge", { method: "POST", path: () => `/api/v1/system/motd/${existing.id}/acknowledge` }],
  ["GET /api/v1/user/motd/pending", { method: "GET", path: () => "/api/v1/user/motd/pending" }],
  ["GET /api/v1/user/motd/current", { method: "GET", path: () => "/api/v1/user/motd/current" }],
  ["POST /api/v1/user/motd/seen", { method: "POST", path: () => "/api/v1/user/motd/seen", json: () => ({ ids: [existing.id] }) }],
  ["GET /api/v1/user/motd/observatories", { method: "GET", path: () => "/api/v1/user/motd/observatories" }],
  ["GET /api/v1/user/motd/managed", { method: "GET", path: () => "/api/v1/user/motd/managed?scope=system" }],
  ["GET /api/v1/user/motd/stats", { method: "GET", path: () => "/api/v1/user/motd/stats" }],
];

describe("authentication", () => {
  it.each(allRoutes)("%s: 401 UNAUTHENTICATED without credentials or with bad ones, changing nothing", async (_label, route) => {
    const before = await stored();
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer garbage" },
      { authorization: `Bearer mst_${"x".repeat(43)}` },
      { cookie: "session=not-a-session", origin: server.url },
    ];
    for (const headers of attempts) {
      const json = route.json?.();
      const response = await server.request(route.path(), { method: route.method, json, headers });
      await expectProblem(response, 401, "UNAUTHENTICATED");
    }
    expect(await stored()).toEqual(before);
    expect(await must(`/api/v1/system/motd/${existing.id}/recipients`, { token: adminToken })).toMatchObject({
      counts: { acknowledged: 0 },
      cancellation: null,
    });
  });

  // The full credential suite (API keys, revoked keys, logged-out sessions, cookies and origins)
  // on the paths every user calls.
  describeAuthSuite(() => server, { method: "GET", path: "/api/v1/user/motd/pending", prepare: () => ({ path: "/api/v1/user/motd/pending" }), success: 200 });
  describeAuthSuite(() => server, {
    method: "POST",
    path: "/api/v1/system/motd/{id}/acknowledge",
    prepare: async (_server, account) => {
      const created = await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: valid({ users: { ids: [account.id] } }) }, 201);
      return { path: `/api/v1/system/motd/${created.id}/acknowledge` };
    },
    success: 200,
  });
});

describe("authorization", () => {
  it.each(systemRoutes)("%s: 403 FORBIDDEN for a user who is not a server admin, even a recipient", async (_label, route) => {
    const before = await stored();
    for (const account of [alice, await createAccount(server)]) {
      await expectProblem(await server.request(route.path(), { method: route.method, token: account.token, json: route.json?.() }), 403, "FORBIDDEN");
    }
    expect(await stored()).toEqual(before);
    expect(await must("/api/v1/system/motd?limit=200", { token: adminToken })).toMatchObject({
      items: expect.arrayContaining([expect.objectContaining({ id: existing.id, status: "active", cancellationReason: null })]),
    });
  });

  it("does not tell a non-admin whether target ids exist", async () => {
    const targets = { users: { ids: ["usr_nope", alice.id] }, projects: { ids: ["prj_gone"] } };
    const creation = await expectProblem(await post(valid(targets), bob.token), 403, "FORBIDDEN");
    expect(creation.errors).toBeUndefined();
    expect(JSON.stringify(creation)).not.toContain("usr_nope");
    const preview = await expectProblem(
      await server.request("/api/v1/system/motd/preview", { method: "POST", token: bob.token, json: { targets } }),
      403,
      "FORBIDDEN",
    );
    expect(JSON.stringify(preview)).not.toContain("prj_gone");
  });

  it("refuses a non-admin's creation and preview before reading the body: 403, never its validation errors", async () => {
    for (const path of ["/api/v1/system/motd", "/api/v1/system/motd/preview"]) {
      const refused = await expectProblem(await server.request(path, { method: "POST", token: bob.token, json: {} }), 403, "FORBIDDEN");
      expect(refused.errors).toBeUndefined();
    }
    await expectProblem(await server.request("/api/v1/system/motd/target-options?kind=galaxies", { token: bob.token }), 403, "FORBIDDEN");
  });

  it("refuses a non-admin cancellation before looking at the reason or the announcement", async () => {
    await expectProblem(await server.request(`/api/v1/system/motd/${existing.id}`, { method: "DELETE", token: alice.token }), 403, "FORBIDDEN");
    await expectProblem(
      await server.request("/api/v1/system/motd/ann_doesnotexist", { method: "DELETE", token: alice.token, json: { reason: "x" } }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(await server.request("/api/v1/system/motd/ann_doesnotexist/recipients", { token: alice.token }), 403, "FORBIDDEN");
  });

  it("shows a non-admin no system announcements among those they manage", async () => {
    expect(await must("/api/v1/user/motd/managed?scope=system", { token: alice.token }, 200)).toEqual({ items: [], nextCursor: null });
  });
});

const long = (length: number) => "x".repeat(length);
const badBodies: Array<[string, Record<string, unknown>, string | null]> = [
  ["a blank title", { title: "" }, "title"],
  ["a title of spaces", { title: "   \t " }, "title"],
  ["a title of 201 characters", { title: long(201) }, "title"],
  ["a title with NUL", { title: "Down\u0000time" }, "title"],
  ["a title with an escape character", { title: "\u001b[31mRed" }, "title"],
  ["a title with a line break", { title: "Two\nlines" }, "title"],
  ["a numeric title", { title: 5 }, "title"],
  ["a null title", { title: null }, "title"],
  ["no title", { title: undefined }, "title"],
  ["a blank message", { message: "  " }, "message"],
  ["a message of 10,001 characters", { message: long(10_001) }, "message"],
  ["a message with NUL", { message: "a\u0000b" }, "message"],
  ["a message with a bell", { message: "ring\u0007" }, "message"],
  ["an array as message", { message: ["a"] }, "message"],
  ["no message", { message: undefined }, "message"],
  ["an unknown severity", { severity: "urgent" }, "severity"],
  ["a severity in capitals", { severity: "INFO" }, "severity"],
  ["no severity", { severity: undefined }, "severity"],
  ["an unknown deliveryType", { deliveryType: "sms" }, "deliveryType"],
  ["a null deliveryType", { deliveryType: null }, "deliveryType"],
  ["no deliveryType", { deliveryType: undefined }, "deliveryType"],
  ["an unknown field", { scope: "system" }, "scope"],
  ["a status at creation", { status: "acknowledged" }, "status"],
  ["no targets", { targets: undefined }, "targets"],
  ["targets as a string", { targets: "all" }, "targets"],
  ["targets as an array", { targets: [{ users: { all: true } }] }, "targets"],
  ["null targets", { targets: null }, "targets"],
  ["a target kind that does not exist", { targets: { groups: { all: true } } }, "targets.groups"],
  ["a target as a boolean", { targets: { users: true } }, "targets.users"],
  ["all as a string", { targets: { users: { all: "yes" } } }, "targets.users.all"],
  ["ids as a string", { targets: { users: { ids: "usr_x" } } }, "targets.users.ids"],
  ["a numeric id", { targets: { users: { ids: [1] } } }, "targets.users.ids.0"],
  ["a null id", { targets: { observatories: { ids: [null] } } }, "targets.observatories.ids.0"],
  ["an object id", { targets: { organizations: { ids: [{ id: "org_x" }] } } }, "targets.organizations.ids.0"],
  ["an empty id", { targets: { projects: { ids: [""] } } }, "targets.projects.ids.0"],
  ["an id of 101 characters", { targets: { users: { ids: [long(101)] } } }, "targets.users.ids.0"],
  ["an id with NUL", { targets: { users: { ids: ["usr_\u0000"] } } }, "targets.users.ids.0"],
  ["an unknown field in a target", { targets: { users: { all: true, except: [] } } }, null],
  ["more than 10,000 ids", { targets: { users: { ids: Array.from({ length: 10_001 }, (_, index) => `usr_${index}`) } } }, "targets.users.ids"],
  ["expiresAt that is not a date", { expiresAt: "tomorrow" }, "expiresAt"],
  ["expiresAt as a number", { expiresAt: 1_893_456_000_000 }, "expiresAt"],
  ["expiresAt with an impossible date", { expiresAt: "2099-13-45T00:00:00Z" }, "expiresAt"],
  ["expiresAt without a time", { expiresAt: "2099-01-01" }, "expiresAt"],
  ["expiresAt without a zone", { expiresAt: "2099-01-01T00:00:00" }, "expiresAt"],
  ["startsAt that is not a date", { startsAt: "now" }, "startsAt"],
  ["startsAt as an object", { startsAt: { at: "2099-01-01T00:00:00Z" } }, "startsAt"],
  ["startsAt in year 0000, which PostgreSQL cannot hold", { startsAt: "0000-06-01T00:00:00Z" }, "startsAt"],
];

describe("bad input on POST /api/v1/system/motd", () => {
  it.each(badBodies)("refuses %s with 400 VALIDATION_FAILED and creates nothing", async (_label, change, path) => {
    const before = await stored();
    const problem = await expectProblem(await post({ ...valid(), ...change }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.length).toBeGreaterThan(0);
    if (path) expect(problem.errors?.map((error) => error.path)).toContain(path);
    expect(await stored()).toEqual(before);
  });

  it.each([
    ["a lone high surrogate in the title", "title"],
    ["a lone low surrogate in the message", "message"],
  ])("refuses %s with 400, not 500", async (_label, field) => {
    const before = await stored();
    const body = JSON.stringify({ ...valid(), [field]: "PLACEHOLDER" }).replace('"PLACEHOLDER"', field === "title" ? '"x\\ud800"' : '"\\udfffx"');
    const problem = await expectProblem(await postRaw(body), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toContain(field);
    expect(await stored()).toEqual(before);
  });

  it.each([
    ["malformed JSON", '{"title": "x", '],
    ["an empty body", ""],
    ["JSON null", "null"],
    ["a JSON array", "[]"],
    ["a JSON string", '"announce"'],
    ["a JSON number", "42"],
    ["trailing garbage", `${JSON.stringify({ title: "x" })} and more`],
  ])("refuses %s with 400 VALIDATION_FAILED, leaking no parser internals", async (_label, body) => {
    const before = await stored();
    const response = await postRaw(body);
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(JSON.stringify(problem)).not.toMatch(/SyntaxError|Unexpected|position \d+/);
    expect(await stored()).toEqual(before);
  });

  it("refuses a body that is not JSON with 415", async () => {
    const before = await stored();
    await expectProblem(await postRaw(JSON.stringify(valid()), { "content-type": "text/plain" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    await expectProblem(await postRaw("title=x&message=y", { "content-type": "application/x-www-form-urlencoded" }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await stored()).toEqual(before);
  });

  it("lists every failing field at once", async () => {
    const problem = await expectProblem(
      await post({ title: "", message: long(10_001), severity: "loud", deliveryType: "pigeon", targets: { users: { ids: [7] } } }),
      400,
      "VALIDATION_FAILED",
    );
    expect(problem.errors?.map((error) => error.path).sort()).toEqual(["deliveryType", "message", "severity", "targets.users.ids.0", "title"]);
  });

  it("accepts the limits themselves: a title of 200 and a message of 10,000 characters", async () => {
    const created = await must(
      "/api/v1/system/motd",
      { method: "POST", token: adminToken, json: { ...valid(), title: long(200), message: `${long(9_998)}\n\t` + "" } },
      201,
    );
    expect(created.title).toHaveLength(200);
    const exact = await must("/api/v1/system/motd", { method: "POST", token: adminToken, json: { ...valid(), message: long(10_000) } }, 201);
    expect(exact.message).toHaveLength(10_000);
    const unicode = await must(
      "/api/v1/system/motd",
      { method: "POST", token: adminToken, json: { ...valid(), title: "Télescope 🔭 ‫مرصد‬", message: "Zürich\r\nΩ" } },
      201,
    );
    expect(unicode).toMatchObject({ title: "Télescope 🔭 ‫مرصد‬", message: "Zürich\r\nΩ" });
  });
});

describe("targets that reach nobody", () => {
  it.each([
    ["every project, when there is none", { projects: { all: true } }],
    ["every observatory, when there is none", { observatories: { all: true } }],
    ["every organization, when there is none", { organizations: { all: true } }],
    ["all three", { projects: { all: true }, observatories: { all: true }, organizations: { all: true } }],
    ["nothing at all", {}],
  ])("refuses %s with 400 NO_RECIPIENTS and creates nothing", async (_label, targets) => {
    const before = await stored();
    await expectProblem(await post(valid(targets)), 400, "NO_RECIPIENTS");
    expect(await stored()).toEqual(before);
    if (Object.keys(targets).length > 0)
      expect(await must("/api/v1/system/motd/preview", { method: "POST", token: adminToken, json: { targets } }, 200)).toEqual({ recipientCount: 0 });
  });
});

describe("bad input elsewhere", () => {
  it.each([
    ["a numeric reason", { reason: 42 }],
    ["a reason of 2,001 characters", { reason: long(2_001) }],
    ["a reason with NUL", { reason: "Wrong\u0000date" }],
    ["a reason with an escape character", { reason: "\u001b[2J" }],
    ["an array", ["reason"]],
  ])("cancellation: refuses %s with 400 VALIDATION_FAILED, the announcement still active", async (_label, json) => {
    await expectProblem(await server.request(`/api/v1/system/motd/${existing.id}`, { method: "DELETE", token: adminToken, json }), 400, "VALIDATION_FAILED");
    expect((await must("/api/v1/system/motd?status=active&limit=200", { token: adminToken })).items.map((item: { id: string }) => item.id)).toContain(
      existing.id,
    );
  });

  it("cancellation: refuses malformed JSON with 400 and a lone surrogate in the reason with 400", async () => {
    await expectProblem(
      await server.request(`/api/v1/system/motd/${existing.id}`, {
        method: "DELETE",
        token: adminToken,
        body: '{"reason": ',
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request(`/api/v1/system/motd/${existing.id}`, {
        method: "DELETE",
        token: adminToken,
        body: '{"reason": "\\ud800"}',
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    await expectProblem(
      await server.request(`/api/v1/system/motd/${existing.id}`, {
        method: "DELETE",
        token: adminToken,
        body: "because",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect((await must("/api/v1/system/motd?status=active&limit=200", { token: adminToken })).items.map((item: { id: string }) => item.id)).toContain(
      existing.id,
    );
  });

  it.each([
    ["GET /api/v1/system/motd?status=bogus", "/api/v1/system/motd?status=bogus"],
    ["GET /api/v1/system/motd?limit=0", "/api/v1/system/motd?limit=0"],
    ["GET /api/v1/system/motd?limit=201", "/api/v1/system/motd?limit=201"],
    ["GET /api/v1/system/motd?limit=many", "/api/v1/system/motd?limit=many"],
    ["GET /api/v1/system/motd?cursor=<201 characters>", `/api/v1/system/motd?cursor=${long(201)}`],
    ["recipients ?status=bogus", "/api/v1/system/motd/{id}/recipients?status=expired"],
    ["recipients ?sort=bogus", "/api/v1/system/motd/{id}/recipients?sort=createdAt"],
    ["recipients ?order=sideways", "/api/v1/system/motd/{id}/recipients?order=sideways"],
    ["recipients ?limit=0", "/api/v1/system/motd/{id}/recipients?limit=0"],
    ["recipients ?cursor=garbage", "/api/v1/system/motd/{id}/recipients?cursor=garbage"],
    ["target-options without kind", "/api/v1/system/motd/target-options"],
    ["target-options ?kind=groups", "/api/v1/system/motd/target-options?kind=groups"],
    ["target-options ?limit=101", "/api/v1/system/motd/target-options?kind=users&limit=101"],
    ["target-options ?q=<201 characters>", `/api/v1/system/motd/target-options?kind=users&q=${long(201)}`],
    ["a NUL in the id", "/api/v1/system/motd/ann%00x/recipients"],
    ["an id of 101 characters", `/api/v1/system/motd/${long(101)}/recipients`],
  ])("query: refuses %s with 400 VALIDATION_FAILED", async (_label, path) => {
    await expectProblem(await server.request(path.replace("{id}", existing.id), { token: adminToken }), 400, "VALIDATION_FAILED");
  });

  it.each([
    ["no targets", {}],
    ["targets as a string", { targets: "all" }],
    ["an unknown field", { targets: { users: { all: true } }, title: "x" }],
    ["a numeric id", { targets: { users: { ids: [1] } } }],
  ])("preview: refuses %s with 400 VALIDATION_FAILED", async (_label, json) => {
    await expectProblem(await server.request("/api/v1/system/motd/preview", { method: "POST", token: adminToken, json }), 400, "VALIDATION_FAILED");
  });

  it("acknowledge: a NUL or an overlong id is 400, an id with odd characters 404, never 500", async () => {
    await expectProblem(await server.request("/api/v1/system/motd/ann%00x/acknowledge", { method: "POST", token: alice.token }), 400, "VALIDATION_FAILED");
    await expectProblem(await server.request(`/api/v1/system/motd/${long(101)}/acknowledge`, { method: "POST", token: alice.token }), 400, "VALIDATION_FAILED");
    for (const id of ["%ED%A0%80", "'%20or%201=1", "%F0%9F%94%AD", "..%2F..%2Fadmin"]) {
      await expectProblem(await server.request(`/api/v1/system/motd/${id}/acknowledge`, { method: "POST", token: alice.token }), 404, "NOT_FOUND");
    }
  });

  it.each([
    ["no ids", { ids: [] }],
    ["ids as a string", { ids: "ann_x" }],
    ["an id with NUL", { ids: ["ann_\u0000"] }],
    ["more than 100 ids", { ids: Array.from({ length: 101 }, (_, index) => `ann_${index}`) }],
  ])("seen: refuses %s with 400 VALIDATION_FAILED", async (_label, json) => {
    await expectProblem(await server.request("/api/v1/user/motd/seen", { method: "POST", token: alice.token, json }), 400, "VALIDATION_FAILED");
  });
});
