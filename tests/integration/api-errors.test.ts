import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, images, roomyLimits, type Account } from "../support/auth-suite";
import { toAppError } from "@meridian/api";
import { startTestServer, type TestServer } from "../support/test-server";
import { STACK_TRACE } from "../support/operation-walk";

let server: TestServer;
let account: Account;
let apiKey: string;
beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, LOGIN_FAILURES_PER_EMAIL: "2" });
  account = await createAccount(server);
  apiKey = (await createApiKey(server, account.token)).key;
});
afterAll(() => server?.stop());

const PROBLEM_FIELDS = ["type", "title", "status", "detail", "code"];

/** One request per kind of failure the auth and user routes can produce. */
const failures: Array<[string, () => Promise<Response>, number, string]> = [
  ["unknown route", () => server.request("/api/v1/does-not-exist"), 404, "NOT_FOUND"],
  ["unknown route under /api", () => server.request("/api/v2/auth/me", { token: account.token }), 404, "NOT_FOUND"],
  ["wrong method", () => server.request("/api/v1/auth/me", { method: "DELETE" }), 405, "METHOD_NOT_ALLOWED"],
  [
    "malformed JSON",
    () => server.request("/api/v1/auth/signup", { method: "POST", body: "{nope", headers: { "content-type": "application/json" } }),
    400,
    "VALIDATION_FAILED",
  ],
  ["invalid body", () => server.request("/api/v1/auth/signup", { method: "POST", json: { email: "x" } }), 400, "VALIDATION_FAILED"],
  ["no credentials", () => server.request("/api/v1/user/profile"), 401, "UNAUTHENTICATED"],
  [
    "bad credentials",
    () => server.request("/api/v1/auth/login", { method: "POST", json: { email: "x@example.com", password: "nope" } }),
    401,
    "INVALID_CREDENTIALS",
  ],
  [
    "cross-origin cookie",
    () =>
      server.request("/api/v1/user/profile", {
        method: "PUT",
        json: { name: "x" },
        headers: { cookie: `session=${account.token}`, origin: "https://evil.example" },
      }),
    403,
    "CROSS_ORIGIN_REQUEST",
  ],
  ["missing resource", () => server.request("/api/v1/users/usr_missing/avatar", { token: account.token }), 404, "NOT_FOUND"],
  [
    "conflict",
    () => server.request("/api/v1/auth/signup", { method: "POST", json: { email: account.email, password: "long enough", name: "Dup" } }),
    409,
    "EMAIL_TAKEN",
  ],
  [
    "oversized JSON",
    () => server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name: "x".repeat(1024 * 1024) } }),
    413,
    "PAYLOAD_TOO_LARGE",
  ],
  [
    "unsupported media",
    () => server.request("/api/v1/user/avatar", { method: "PUT", token: account.token, body: "text", headers: { "content-type": "text/plain" } }),
    415,
    "UNSUPPORTED_MEDIA_TYPE",
  ],
];

describe("error contract", () => {
  it.each(failures)("%s is application/problem+json with type, title, status, detail, code", async (_label, send, status, code) => {
    const response = await send();
    const problem = await expectProblem(response, status, code);
    for (const field of PROBLEM_FIELDS) expect(problem).toHaveProperty(field);
    expect(problem.status).toBe(response.status);
    expect(problem.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("uses a distinct type per code", async () => {
    const types = new Map<string, string>();
    for (const [, send] of failures) {
      const problem = await (await send()).json();
      const known = types.get(problem.code);
      if (known) expect(problem.type).toBe(known);
      types.set(problem.code, problem.type);
    }
    expect(new Set(types.values()).size).toBe(types.size);
  });

  it("answers 404 NOT_FOUND for unknown routes whatever the method", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
      const response = await server.request("/api/v1/nothing/here", { method, json: method === "GET" ? undefined : {} });
      await expectProblem(response, 404, "NOT_FOUND");
    }
  });

  it("answers 405 METHOD_NOT_ALLOWED with an Allow header for a wrong method on a known path", async () => {
    const response = await server.request("/api/v1/auth/me", { method: "DELETE", token: account.token });
    await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")?.split(/,\s*/)).toEqual(expect.arrayContaining(["GET"]));
    expect(response.headers.get("allow")).not.toMatch(/DELETE/);

    const signup = await server.request("/api/v1/auth/signup", { method: "GET" });
    await expectProblem(signup, 405, "METHOD_NOT_ALLOWED");
    expect(signup.headers.get("allow")).toBe("POST");

    const keyItem = await server.request("/api/v1/user/api-keys/key_123", { method: "PUT", token: account.token, json: {} });
    await expectProblem(keyItem, 405, "METHOD_NOT_ALLOWED");
    expect(keyItem.headers.get("allow")).toBe("DELETE");
  });

  it.each([
    ["a truncated object", '{"email": "a@example.com", "password": '],
    ["a trailing comma", '{"email": "a@example.com",}'],
    ["single quotes", "{'email': 'a@example.com'}"],
    ["plain text", "email=a@example.com"],
    ["an empty body", ""],
    ["a lone brace", "}"],
    ["invalid UTF-8", Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ])("answers 400 VALIDATION_FAILED for malformed JSON: %s", async (_label, body) => {
    const response = await server.request("/api/v1/auth/login", { method: "POST", body, headers: { "content-type": "application/json" } });
    await expectProblem(response, 400, "VALIDATION_FAILED");
  });

  it("answers 400 with the failing fields listed in errors", async () => {
    const response = await server.request("/api/v1/auth/signup", { method: "POST", json: { email: "not-an-email", password: "short", name: "Ok" } });
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { path: "email", message: expect.any(String) },
        { path: "password", message: expect.any(String) },
      ]),
    );
  });

  it("answers 413 PAYLOAD_TOO_LARGE for a JSON body over 1 MB", async () => {
    const response = await server.request("/api/v1/auth/signup", {
      method: "POST",
      json: { email: "big@example.com", password: "p".repeat(1024 * 1024), name: "Big" },
    });
    await expectProblem(response, 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers 413 for a JSON body over 1 MB sent without Content-Length", async () => {
    const piece = new TextEncoder().encode(`"${"x".repeat(64 * 1024)}",`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name": ['));
        if (sent >= 20) {
          controller.enqueue(new TextEncoder().encode('""]}'));
          return controller.close();
        }
        sent += 1;
        controller.enqueue(piece);
      },
    });
    const response = await server.request("/api/v1/user/profile", {
      method: "PUT",
      token: account.token,
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    await expectProblem(response, 413, "PAYLOAD_TOO_LARGE");
  });

  it("accepts a JSON body just under 1 MB (refused by validation, not by size)", async () => {
    const response = await server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name: "x".repeat(1000 * 1000) } });
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path)).toEqual(["name"]);
  });

  it("answers 429 RATE_LIMITED as problem+json with Retry-After", async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await server.request("/api/v1/auth/login", { method: "POST", json: { email: "limited@example.com", password: "nope" } });
    }
    const response = await server.request("/api/v1/auth/login", { method: "POST", json: { email: "limited@example.com", password: "nope" } });
    await expectProblem(response, 429, "RATE_LIMITED");
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});

describe("x-request-id", () => {
  const everyKind: Array<[string, () => Promise<Response>]> = [
    ["a JSON success", () => server.request("/api/v1/auth/me", { token: account.token })],
    ["a 204", () => server.request("/api/v1/auth/logout", { method: "POST", token: apiKey })],
    ["an error", () => server.request("/api/v1/auth/me")],
    ["a 404", () => server.request("/nowhere")],
    ["a 405", () => server.request("/api/v1/auth/me", { method: "POST" })],
    ["a 413", () => server.request("/api/v1/auth/login", { method: "POST", json: { email: "x".repeat(1_100_000), password: "x" } })],
    ["health", () => server.request("/api/health/live")],
    ["the OpenAPI document", () => server.request("/api/openapi.json")],
    ["the docs page", () => server.request("/api/docs")],
    ["tRPC", () => server.request("/trpc/auth.me")],
  ];

  it.each(everyKind)("is set on %s", async (_label, send) => {
    const response = await send();
    expect(response.status).toBeLessThan(500);
    expect(response.headers.get("x-request-id")).toMatch(/^[\w.:-]{1,128}$/);
    await response.arrayBuffer();
  });

  it("is set on an image response", async () => {
    const upload = await server.request("/api/v1/user/avatar", {
      method: "PUT",
      token: account.token,
      body: images.png,
      headers: { "content-type": "image/png" },
    });
    expect(upload.status).toBe(200);
    const response = await server.request(`/api/v1/users/${account.id}/avatar`, { token: account.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("differs between requests", async () => {
    const first = (await server.request("/api/health/live")).headers.get("x-request-id");
    const second = (await server.request("/api/health/live")).headers.get("x-request-id");
    expect(first).not.toBe(second);
  });

  it("echoes a well-formed incoming id, also into the problem", async () => {
    const response = await server.request("/api/v1/auth/me", { headers: { "x-request-id": "client-trace.42" } });
    expect(response.headers.get("x-request-id")).toBe("client-trace.42");
    await expectProblem(response, 401, "UNAUTHENTICATED");
  });

  it("replaces an incoming id that is not well-formed", async () => {
    const response = await server.request("/api/health/live", { headers: { "x-request-id": "bad id <script>" } });
    const id = response.headers.get("x-request-id");
    expect(id).toBeTruthy();
    expect(id).not.toContain("<script>");
  });
});

describe("no stack traces", () => {
  it.each(failures)("%s leaks no stack frame or file path", async (_label, send) => {
    const text = await (await send()).text();
    expect(text).not.toMatch(STACK_TRACE);
    expect(text).not.toMatch(/"stack"/);
  });

  it("malformed JSON on every JSON route leaks no parser internals", async () => {
    const routes: Array<[string, string]> = [
      ["POST", "/api/v1/auth/signup"],
      ["POST", "/api/v1/auth/login"],
      ["POST", "/api/v1/user/api-keys"],
      ["PUT", "/api/v1/user/profile"],
    ];
    for (const [method, path] of routes) {
      const response = await server.request(path, { method, token: account.token, body: '{"a":', headers: { "content-type": "application/json" } });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(text).not.toMatch(STACK_TRACE);
      expect(text).not.toMatch(/SyntaxError|Unexpected end|position \d+/);
    }
  });
});

describe("a value PostgreSQL refuses, past every schema", () => {
  const failureOf = (query: (sql: TestServer["server"]["runtime"]["deps"]["sql"]) => Promise<unknown>) =>
    query(server.server.runtime.deps.sql).then(
      () => undefined,
      (error: unknown) => error,
    );
  // Real errors from the real database, for values bound as a handler binds them: what a field without its rule would let through.
  it.each<[string, (sql: TestServer["server"]["runtime"]["deps"]["sql"]) => Promise<unknown>]>([
    ["NUL in text", (sql) => sql`select ${"a\u0000b"}::text`],
    ["NUL in jsonb", (sql) => sql`select ${JSON.stringify({ name: "a\u0000b" })}::jsonb`],
    ["a moment in year 0000", (sql) => sql`select ${"0000-01-01T00:00:00Z"}::timestamptz`],
    ["a number out of its range", (sql) => sql`select ${"2147483648"}::int4`],
  ])("%s is answered 400 VALIDATION_FAILED, not 500, and tells nothing of PostgreSQL", async (_label, query) => {
    const failure = await failureOf(query);
    expect(failure).toBeDefined();
    const answered = toAppError(failure);
    expect({ status: answered.status, code: answered.code }).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    expect(answered.message).not.toMatch(/postgres|invalid input|encoding|for type|0x00/i);
  });

  it("an error PostgreSQL raises for any other reason stays a 500", async () => {
    expect(toAppError(await failureOf((sql) => sql`select 1 / ${0}::int`)).code).toBe("INTERNAL");
  });
});
