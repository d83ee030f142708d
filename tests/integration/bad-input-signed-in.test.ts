import { randomBytes } from "node:crypto";
import { appRouter } from "@meridian/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import type { TestServer } from "../support/test-server";

/**
 * "Bad input gets a 4xx problem+json with a stable code, never a 500": walked over every operation
 * of the OpenAPI document as the server admin, whom few permission checks stop, so that what is
 * sent reaches each operation's own validation and lookups. Objects of every kind the paths name
 * exist, so a path's ids can be real while its query or body is not.
 */

interface Operation {
  requestBody?: { content: Record<string, unknown> };
  parameters?: Array<{ name: string; in: string }>;
}
type Paths = Record<string, Record<string, Operation>>;

const ADMIN = { email: "bad-input-admin@example.com", password: "bad input admin password" };
const STACK = /at [\w.<>]+ \(|\.ts:\d+|node_modules|node:internal/;
const METHODS = ["get", "post", "put", "patch", "delete"];
/** Sign the admin out: every request after them would be refused before its input is read. */
const SIGNS_OUT = new Set(["POST /api/v1/auth/logout", "auth.logout"]);

let server: TestServer;
let token: string;
let paths: Paths;
/** Real ids by path parameter, by the collection the path starts with where `{id}` differs between them. */
let realIds: Record<string, string> = {};
const { must } = jsonApi(() => server);

beforeAll(async () => {
  ({ server, adminToken: token } = await startServerWithAdmin(ADMIN, { API_WRITES_PER_MINUTE: "100000" }));
  paths = ((await (await server.request("/api/openapi.json")).json()) as { paths: Paths }).paths;
});
afterAll(() => server?.stop());

/** Objects of every kind the paths name, new for each walk: a walk's deletions come last, but they do come. */
async function freshObjects() {
  const tag = randomBytes(4).toString("hex");
  const me = (await must("/api/v1/auth/me", { token }, 200)) as { id: string };
  const organization = (await must(
    "/organizations",
    { method: "POST", token, json: { name: `Org ${tag}`, shortName: `org-${tag}`, type: "other", contactEmail: `${tag}@example.com` } },
    201,
  )) as { id: string };
  const observatory = (await must("/observatories", { method: "POST", token, json: { name: `Scope ${tag}` } }, 201)) as { id: string };
  const project = (await must("/projects", { method: "POST", token, json: { name: `Survey ${tag}` } }, 201)) as { id: string };
  const observation = (await must(
    "/observations",
    {
      method: "POST",
      token,
      json: {
        name: "Bad input",
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [{ name: "M 31", ra: 10.6847, dec: 41.269, epoch: "J2000", exposures: [{ filter: "R", exposureSeconds: 1, count: 1, binning: 1 }] }],
      },
    },
    201,
  )) as { id: string };
  realIds = {
    "/organizations": organization.id,
    "/observatories": observatory.id,
    "/projects": project.id,
    "/observations": observation.id,
    "/api/v1/admin/users": me.id,
    "/api/v1/users": me.id,
    userId: me.id,
    orgId: organization.id,
    projectId: project.id,
  };
}

/** The path with real ids where there are any, or undefined when one of its parameters has none. */
function withRealIds(path: string): string | undefined {
  let missing = false;
  const filled = path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const id = name === "id" ? (realIds[`/${path.split("/")[1]}`] ?? realIds[path.split("/").slice(0, 4).join("/")]) : realIds[name];
    if (!id) missing = true;
    return id ?? "";
  });
  return missing ? undefined : filled;
}

const junkIds = ["x".repeat(300), "%00", "%F0%9F%94%AD", "no_such_id"];
const junkQuery =
  `?limit=-1&limit=abc&cursor=%00&cursor=${"c".repeat(3000)}&all=maybe&q=%00${"q".repeat(3000)}&status=nowhere&from=yesterday&to=0000-01-01` +
  "&night=not-a-date&format=exe&sort=sideways&order=upwards&scope=nowhere&priority=eleven&name=&kind=%00&autoFixable=perhaps&severity=9";
const junkBodies: Array<{ label: string; body: string; contentType?: string }> = [
  { label: "malformed JSON", body: '{"name": ', contentType: "application/json" },
  { label: "a JSON array", body: "[1,2,3]", contentType: "application/json" },
  { label: "JSON null", body: "null", contentType: "application/json" },
  { label: "an empty object", body: "{}", contentType: "application/json" },
  {
    label: "wrong types everywhere",
    body: JSON.stringify({ name: 7, status: [], targets: "many", limit: "many", priority: 1e308, email: {}, permissions: "all", unknownField: true }),
    contentType: "application/json",
  },
  {
    label: "NUL and control characters",
    body: JSON.stringify({ name: "a\u0000b", shortName: "\u0007", description: "\u0000", email: "a\u0000@example.com", title: "\u0000", body: "\u0000" }),
    contentType: "application/json",
  },
  { label: "deeply nested", body: `${"[".repeat(2000)}${"]".repeat(2000)}`, contentType: "application/json" },
  { label: "text/plain", body: "not json at all", contentType: "text/plain" },
  { label: "no content type", body: "{}" },
];

interface Probe {
  method: string;
  label: string;
  url: string;
  body?: (typeof junkBodies)[number];
}

/** For each operation: real ids with each junk body (or none) and the junk query; junk ids with an empty object or nothing. */
function probesFor(method: string, path: string, operation: Operation): Probe[] {
  const real = withRealIds(path);
  const hasBody = operation.requestBody !== undefined;
  const probes: Probe[] = [];
  if (real !== undefined) {
    // fetch sends no body with a GET; an operation that takes none ignores one (a DELETE's malformed JSON included).
    const bodies = hasBody ? junkBodies : method === "GET" ? [undefined] : [undefined, junkBodies[0]];
    for (const body of bodies) probes.push({ method, label: `${method} ${real} with ${body?.label ?? "no body"}`, url: real, body });
    probes.push({ method, label: `${method} ${real} with a junk query`, url: `${real}${junkQuery}`, body: hasBody ? junkBodies[3] : undefined });
  }
  if (path.includes("{"))
    for (const id of junkIds) {
      const url = path.replace(/\{[^}]+\}/g, id);
      probes.push({ method, label: `${method} ${url.slice(0, 60)} (junk id)`, url, body: hasBody ? junkBodies[3] : undefined });
    }
  return probes;
}

/** Every probe of every operation but signing out; writes that delete come last, so that the others still find what they name. */
function allProbes(): Probe[] {
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  return operations
    .filter(({ method, path }) => !SIGNS_OUT.has(`${method} ${path}`))
    .sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"))
    .flatMap(({ method, path, operation }) => probesFor(method, path, operation));
}

describe("bad input from a signed-in caller", () => {
  it("the document's operations are all walked, most of them with real ids", async () => {
    await freshObjects();
    const probes = allProbes();
    const operations = Object.values(paths).flatMap((item) => Object.keys(item).filter((method) => METHODS.includes(method)));
    expect(operations.length).toBeGreaterThan(150);
    expect(probes.length).toBeGreaterThan(operations.length * 3);
    // Parameters without a real id here (keys, announcements, invitations, files...) are still walked with junk ids.
    expect(Object.keys(paths).filter((path) => withRealIds(path) !== undefined).length).toBeGreaterThan(Object.keys(paths).length / 2);
  });

  // About a thousand requests, a few at a time.
  it("is answered below 500 by every operation, a refusal as problem+json with a code and a readable detail", { timeout: 300_000 }, async () => {
    await freshObjects();
    const failures: string[] = [];
    const probes = allProbes();
    for (let start = 0; start < probes.length; start += 6) {
      await Promise.all(
        probes.slice(start, start + 6).map(async (probe) => {
          const response = await fetch(`${server.url}${probe.url}`, {
            method: probe.method,
            headers: { authorization: `Bearer ${token}`, ...(probe.body?.contentType ? { "content-type": probe.body.contentType } : {}) },
            body: probe.method === "GET" ? undefined : probe.body?.body,
          });
          const text = await response.text();
          if (response.status >= 500) return void failures.push(`${probe.label}: ${response.status} ${text.slice(0, 200)}`);
          if (STACK.test(text)) return void failures.push(`${probe.label}: a stack frame in ${text.slice(0, 200)}`);
          if (response.status < 400) return;
          const problem = (response.headers.get("content-type") ?? "").startsWith("application/problem+json")
            ? (JSON.parse(text) as { code?: unknown; detail?: unknown; status?: unknown })
            : undefined;
          if (!problem || typeof problem.code !== "string" || typeof problem.detail !== "string" || problem.status !== response.status)
            failures.push(`${probe.label}: ${response.status} not a problem with a code: ${text.slice(0, 200)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
    // Still signed in: nothing walked ended the session the walk depends on.
    await must("/api/v1/auth/me", { token }, 200);
  });
});

/** Procedures that end what they name go last, so that the others still find it. */
const ENDS = /delete|remove|revoke|cancel|restore|cleanup/i;
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
  .map(([path, procedure]) => ({ path, type: procedure._def.type }))
  .filter(({ path }) => !SIGNS_OUT.has(path))
  .sort((a, b) => Number(ENDS.test(a.path)) - Number(ENDS.test(b.path)));

/**
 * Inputs no procedure accepts; one naming real objects beside fields no schema allows; and each real
 * object alone, by the names procedures take, so that a procedure whose input it is runs.
 */
const junkInputs = () => [
  ...["/observations", "/observatories", "/projects", "/organizations"].map((kind) => JSON.stringify({ id: realIds[kind] })),
  JSON.stringify({ observationId: realIds["/observations"] }),
  JSON.stringify({ observatoryId: realIds["/observatories"] }),
  JSON.stringify({ projectId: realIds["/projects"] }),
  JSON.stringify({ organizationId: realIds["/organizations"] }),
  '{"json": ',
  "null",
  "[1,2]",
  "%00",
  JSON.stringify({ id: "x".repeat(300), limit: -1, name: 7, unknownField: true }),
  JSON.stringify({
    id: realIds["/observations"],
    observationId: realIds["/observations"],
    observatoryId: realIds["/observatories"],
    projectId: realIds["/projects"],
    organizationId: realIds["/organizations"],
    userId: realIds.userId,
    name: "a\u0000b",
    status: "nowhere",
    limit: "many",
  }),
];

describe("bad input from a signed-in caller over tRPC", () => {
  it("is answered below 500 by every procedure, each refusal with a Meridian code", { timeout: 300_000 }, async () => {
    expect(procedures.length).toBeGreaterThan(100);
    await freshObjects();
    const failures: string[] = [];
    for (const { path, type } of procedures)
      await Promise.all(
        junkInputs().map(async (input) => {
          const url = `${server.url}/trpc/${path}`;
          const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
          const response =
            type === "query"
              ? await fetch(`${url}?input=${encodeURIComponent(input)}`, { headers })
              : await fetch(url, { method: "POST", headers, body: input });
          const text = await response.text();
          if (response.status >= 500) return void failures.push(`${path} ${input.slice(0, 40)}: ${response.status} ${text.slice(0, 200)}`);
          if (STACK.test(text)) return void failures.push(`${path} ${input.slice(0, 40)}: a stack frame in ${text.slice(0, 200)}`);
          const body = JSON.parse(text) as { error?: { data?: { code?: unknown } } };
          if (body.error && typeof body.error.data?.code !== "string") failures.push(`${path} ${input.slice(0, 40)}: no code in ${text.slice(0, 200)}`);
        }),
      );
    expect(failures).toEqual([]);
    await must("/api/v1/auth/me", { token }, 200);
  });
});
