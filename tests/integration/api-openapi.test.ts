import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";

type Schema = Record<string, unknown> & { $ref?: string; properties?: Record<string, Schema>; required?: string[]; type?: unknown; items?: Schema };
interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, unknown> };
}

let server: TestServer;
let doc: Document;
beforeAll(async () => {
  server = await startTestServer();
  const response = await server.request("/api/openapi.json");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  doc = (await response.json()) as Document;
});
afterAll(() => server?.stop());

/** The REST paths of the contract's "Auth and users" and "Health" sections, with what each carries. */
const contract: Array<{ method: string; path: string; success: string; body?: "json" | "binary"; response?: "json" | "image"; authenticated: boolean }> = [
  { method: "post", path: "/api/v1/auth/signup", success: "201", body: "json", response: "json", authenticated: false },
  { method: "post", path: "/api/v1/auth/login", success: "200", body: "json", response: "json", authenticated: false },
  { method: "post", path: "/api/v1/auth/logout", success: "204", authenticated: true },
  { method: "get", path: "/api/v1/auth/me", success: "200", response: "json", authenticated: true },
  { method: "get", path: "/api/v1/user/api-keys", success: "200", response: "json", authenticated: true },
  { method: "post", path: "/api/v1/user/api-keys", success: "201", body: "json", response: "json", authenticated: true },
  { method: "delete", path: "/api/v1/user/api-keys/{id}", success: "204", authenticated: true },
  { method: "get", path: "/api/v1/user/profile", success: "200", response: "json", authenticated: true },
  { method: "put", path: "/api/v1/user/profile", success: "200", body: "json", response: "json", authenticated: true },
  { method: "put", path: "/api/v1/user/avatar", success: "200", body: "binary", response: "json", authenticated: true },
  { method: "get", path: "/api/v1/users/{id}/avatar", success: "200", response: "image", authenticated: true },
  { method: "put", path: "/api/v1/user/password", success: "204", body: "json", authenticated: true },
  { method: "post", path: "/api/v1/auth/password-reset", success: "202", body: "json", authenticated: false },
  { method: "post", path: "/api/v1/auth/password-reset/confirm", success: "204", body: "json", authenticated: false },
  { method: "get", path: "/api/v1/user/sessions", success: "200", response: "json", authenticated: true },
  { method: "delete", path: "/api/v1/user/sessions/{id}", success: "204", authenticated: true },
  { method: "post", path: "/api/v1/user/sessions/revoke-others", success: "204", authenticated: true },
  { method: "get", path: "/api/v1/admin/users", success: "200", response: "json", authenticated: true },
  { method: "put", path: "/api/v1/admin/users/{id}", success: "200", body: "json", response: "json", authenticated: true },
  { method: "get", path: "/api/health/live", success: "200", response: "json", authenticated: false },
  { method: "get", path: "/api/health/ready", success: "200", response: "json", authenticated: false },
  { method: "get", path: "/api/health", success: "200", response: "json", authenticated: false },
  // Announcements (MOTD): the system and user paths, then the six scoped paths under each of the three prefixes.
  { method: "post", path: "/api/v1/system/motd", success: "201", body: "json", response: "json", authenticated: true },
  { method: "get", path: "/api/v1/system/motd", success: "200", response: "json", authenticated: true },
  { method: "delete", path: "/api/v1/system/motd/{id}", success: "200", body: "json", response: "json", authenticated: true },
  { method: "post", path: "/api/v1/system/motd/{id}/acknowledge", success: "200", response: "json", authenticated: true },
  { method: "get", path: "/api/v1/system/motd/{id}/recipients", success: "200", response: "json", authenticated: true },
  { method: "get", path: "/api/v1/user/motd/pending", success: "200", response: "json", authenticated: true },
  ...["observatories", "organizations", "projects"].flatMap((prefix) => [
    { method: "post", path: `/${prefix}/{id}/motd`, success: "201", body: "json" as const, response: "json" as const, authenticated: true },
    { method: "get", path: `/${prefix}/{id}/motd`, success: "200", response: "json" as const, authenticated: true },
    { method: "get", path: `/${prefix}/{id}/motd/history`, success: "200", response: "json" as const, authenticated: true },
    { method: "delete", path: `/${prefix}/{id}/motd/{motdId}`, success: "200", body: "json" as const, response: "json" as const, authenticated: true },
    { method: "post", path: `/${prefix}/{id}/motd/{motdId}/acknowledge`, success: "200", response: "json" as const, authenticated: true },
    { method: "get", path: `/${prefix}/{id}/motd/{motdId}/recipients`, success: "200", response: "json" as const, authenticated: true },
  ]),
];

function resolve(schema: Schema | undefined): Schema {
  expect(schema).toBeDefined();
  if (!schema!.$ref) return schema!;
  const name = schema!.$ref.replace(/^#\/components\/schemas\//, "");
  const target = doc.components.schemas[name];
  expect(target, `unresolved ${schema!.$ref}`).toBeDefined();
  return resolve(target);
}

/** Every schema reachable from a schema, refs followed once. */
function reachable(schema: Schema | undefined, seen = new Set<Schema>()): Schema[] {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return [];
  seen.add(schema);
  const children: Schema[] = [];
  if (schema.$ref) children.push(resolve(schema));
  for (const value of Object.values(schema)) {
    if (Array.isArray(value)) children.push(...value.filter((item): item is Schema => typeof item === "object" && item !== null));
    else if (typeof value === "object" && value !== null) children.push(value as Schema);
  }
  if (schema.properties) children.push(...Object.values(schema.properties));
  return [schema, ...children.flatMap((child) => reachable(child, seen))];
}

const propertiesOf = (schema: Schema | undefined) => Object.keys(resolve(schema).properties ?? {}).sort();
const operation = (method: string, path: string) => doc.paths[path]?.[method] as Operation;

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
  });

  it.each(contract)("documents $method $path", ({ method, path }) => {
    expect(Object.keys(doc.paths)).toContain(path);
    expect(Object.keys(doc.paths[path] ?? {})).toContain(method);
  });

  it.each(contract.filter((entry) => entry.body === "json"))("has a JSON request schema for $method $path", ({ method, path }) => {
    const body = operation(method, path).requestBody;
    const schema = resolve(body?.content["application/json"]?.schema);
    expect(schema.type).toBe("object");
    expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
  });

  it("describes the avatar upload as a binary body of the accepted image types", () => {
    const content = operation("put", "/api/v1/user/avatar").requestBody?.content ?? {};
    for (const type of ["image/png", "image/jpeg", "image/gif"]) {
      expect(content[type]?.schema).toMatchObject({ type: "string", format: "binary" });
    }
  });

  it.each(contract)("has a $success response with a schema for $method $path", ({ method, path, success, response }) => {
    const answer = operation(method, path).responses[success];
    expect(answer).toBeDefined();
    expect(answer!.description).toBeTruthy();
    if (response === "json") {
      const schema = resolve(answer!.content?.["application/json"]?.schema);
      expect(schema.type).toBe("object");
      expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
    } else if (response === "image") {
      const [type, media] = Object.entries(answer!.content ?? {})[0] ?? [];
      expect(type).toMatch(/^image\//);
      expect(media?.schema).toMatchObject({ type: "string", format: "binary" });
    } else {
      expect(answer!.content).toBeUndefined();
    }
  });

  it.each(contract.filter((entry) => entry.authenticated))("documents 401 as problem+json and the credentials for $method $path", ({ method, path }) => {
    const op = operation(method, path);
    const problem = resolve(op.responses["401"]?.content?.["application/problem+json"]?.schema);
    expect(problem.required).toEqual(expect.arrayContaining(["type", "title", "status", "detail", "code"]));
    expect(op.security).toEqual(expect.arrayContaining([{ bearer: [] }, { cookie: [] }]));
  });

  it("declares the bearer and cookie credentials", () => {
    expect(doc.components.securitySchemes?.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes?.cookie).toMatchObject({ type: "apiKey", in: "cookie", name: "session" });
  });

  it("declares the id path parameters", () => {
    for (const path of ["/api/v1/user/api-keys/{id}", "/api/v1/users/{id}/avatar"]) {
      for (const op of Object.values(doc.paths[path] ?? {})) {
        expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "id", in: "path", required: true })]));
      }
    }
  });

  it("documents the documented errors of each route as problem+json", () => {
    const expected: Array<[string, string, string[]]> = [
      ["post", "/api/v1/auth/signup", ["400", "403", "409", "429"]],
      ["post", "/api/v1/auth/login", ["400", "401", "429"]],
      ["delete", "/api/v1/user/api-keys/{id}", ["401", "404"]],
      ["put", "/api/v1/user/profile", ["400", "401"]],
      ["put", "/api/v1/user/avatar", ["401", "413", "415"]],
      ["get", "/api/v1/users/{id}/avatar", ["401", "404"]],
      ["post", "/api/v1/system/motd", ["400", "401", "403"]],
      ["delete", "/api/v1/system/motd/{id}", ["400", "401", "403", "404", "409"]],
      ["post", "/api/v1/system/motd/{id}/acknowledge", ["401", "404", "409"]],
      ["delete", "/observatories/{id}/motd/{motdId}", ["400", "401", "403", "404", "409"]],
      ["post", "/projects/{id}/motd/{motdId}/acknowledge", ["401", "404", "409"]],
    ];
    for (const [method, path, statuses] of expected) {
      for (const status of statuses) {
        const schema = operation(method, path).responses[status]?.content?.["application/problem+json"]?.schema;
        expect(schema, `${method} ${path} ${status}`).toBeDefined();
        expect(propertiesOf(schema)).toEqual(expect.arrayContaining(["code", "detail", "status", "title", "type"]));
      }
    }
  });

  it("matches the contract's shapes", () => {
    const response = (method: string, path: string, status: string) => operation(method, path).responses[status]?.content?.["application/json"]?.schema;
    const request = (method: string, path: string) => operation(method, path).requestBody?.content["application/json"]?.schema;

    const authResult = resolve(response("post", "/api/v1/auth/signup", "201"));
    expect(Object.keys(authResult.properties ?? {}).sort()).toEqual(["token", "user"]);
    const user = resolve(authResult.properties!.user);
    expect(user.required).toEqual(expect.arrayContaining(["id", "email", "name", "roles", "createdAt"]));
    expect(resolve(user.properties!.roles).type).toBe("array");
    expect(resolve(response("get", "/api/v1/auth/me", "200"))).toEqual(user);

    expect(resolve(request("post", "/api/v1/auth/signup")).required?.sort()).toEqual(["email", "name", "password"]);
    expect(resolve(request("post", "/api/v1/auth/login")).required?.sort()).toEqual(["email", "password"]);
    expect(resolve(request("post", "/api/v1/user/api-keys")).required).toEqual(["name"]);
    expect(resolve(response("post", "/api/v1/user/api-keys", "201")).required?.sort()).toEqual(["createdAt", "expiresAt", "id", "key", "name"]);

    const list = resolve(response("get", "/api/v1/user/api-keys", "200"));
    expect(Object.keys(list.properties ?? {}).sort()).toEqual(["items", "nextCursor"]);
    const listed = resolve(resolve(list.properties!.items).items);
    expect(Object.keys(listed.properties ?? {})).not.toContain("key");
    expect(Object.keys(listed.properties ?? {}).some((name) => /hash/i.test(name))).toBe(false);

    const profile = resolve(response("get", "/api/v1/user/profile", "200"));
    expect(profile.required).toEqual(expect.arrayContaining(["name", "notificationPreferences"]));
    expect(propertiesOf(profile.properties!.notificationPreferences)).toEqual(["email", "observationEvents", "push", "systemEvents"]);
    const update = resolve(request("put", "/api/v1/user/profile"));
    expect(Object.keys(update.properties ?? {}).sort()).toEqual(["name", "notificationPreferences", "timeDisplay"]);
    expect(update.required ?? []).toEqual([]);
    expect(update.additionalProperties).toBe(false);

    const health = resolve(response("get", "/api/health", "200"));
    expect(health.required).toEqual(expect.arrayContaining(["status", "version", "uptimeSeconds", "checks"]));
    expect(propertiesOf(health.properties!.checks)).toEqual(expect.arrayContaining(["database", "objectStorage", "websocket", "worker"]));
    expect(operation("get", "/api/health").responses["503"]).toBeDefined();
    expect(operation("get", "/api/health/ready").responses["503"]).toBeDefined();
  });

  it("publishes only patterns a client can use (no JavaScript regex flags glued on)", () => {
    const patterns: string[] = [];
    for (const { method, path } of contract) {
      const op = operation(method, path);
      const roots = [
        ...Object.values(op.requestBody?.content ?? {}).map((media) => media.schema),
        ...Object.values(op.responses).flatMap((answer) => Object.values(answer.content ?? {}).map((media) => media.schema)),
        ...(op.parameters ?? []).map((parameter) => parameter.schema),
      ];
      for (const schema of roots.flatMap((root) => reachable(root))) if (typeof schema.pattern === "string") patterns.push(schema.pattern);
    }
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\/[dgimsuyv]*$/);
      expect(() => new RegExp(pattern, "u")).not.toThrow();
    }
  });

  it("every $ref in the document resolves", () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const name = ref.slice(8, -1).replace(/^#\/components\/schemas\//, "");
      expect(doc.components.schemas[name], ref).toBeDefined();
    }
  });
});

describe("GET /api/docs", () => {
  let html: string;
  beforeAll(async () => {
    const response = await server.request("/api/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    html = await response.text();
  });

  const assetUrls = () => [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((match) => match[1]!);

  it("references only same-origin assets (no CDN)", () => {
    const urls = assetUrls();
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const url of urls) {
      expect(url, url).not.toMatch(/^(?:[a-z][a-z0-9+.-]*:)?\/\//i);
      expect(new URL(url, server.url).origin).toBe(new URL(server.url).origin);
    }
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/unpkg|jsdelivr|cdnjs|googleapis/i);
  });

  it("loads every referenced asset (200, non-empty, right type)", async () => {
    for (const url of assetUrls()) {
      const response = await server.request(new URL(url, server.url).pathname);
      expect(response.status, url).toBe(200);
      const type = response.headers.get("content-type") ?? "";
      if (url.endsWith(".js")) expect(type).toMatch(/javascript/);
      if (url.endsWith(".css")) expect(type).toMatch(/text\/css/);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it("points the reference at this server's document and calls no online validator", async () => {
    const scripts = assetUrls().filter((url) => url.endsWith(".js"));
    const sources = await Promise.all(scripts.map(async (url) => ({ url, text: await (await server.request(url)).text() })));
    const initializer = sources.find((source) => source.text.includes("/api/openapi.json"));
    expect(initializer, "a script loading /api/openapi.json").toBeDefined();
    expect(initializer!.text).not.toMatch(/https?:\/\//);
    expect(initializer!.text).toMatch(/validatorUrl:\s*null/);
  });

  it("has a favicon of its own", async () => {
    const icon = html.match(/<link rel="icon" href="([^"]+)"/)?.[1];
    expect(icon).toBe("/api/docs/assets/favicon.svg");
    const response = await server.request(icon!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(await response.text()).toMatch(/^<svg /);
  });

  it("answers 404 problem+json for an asset that does not exist", async () => {
    const response = await server.request("/api/docs/assets/nope.js");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("does not serve files outside the reference's assets", async () => {
    for (const path of ["/api/docs/assets/..%2Fpackage.json", "/api/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json", "/api/docs/assets/index.html"]) {
      const response = await server.request(path);
      expect(response.status, path).toBe(404);
    }
  });
});
