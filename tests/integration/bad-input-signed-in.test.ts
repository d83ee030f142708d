import { appRouter } from "@meridian/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import {
  freshObjects,
  JUNK_BODIES,
  JUNK_IDS,
  openApiDocument,
  restAnswerProblem,
  SIGNS_OUT,
  STACK_TRACE,
  walkedOperations,
  withRealIds,
  type JunkBody,
  type OpenApiDocument,
  type RealIds,
  type WalkedOperation,
} from "../support/operation-walk";
import type { TestServer } from "../support/test-server";

/**
 * "Bad input gets a 4xx problem+json with a stable code, never a 500": walked over every operation
 * of the OpenAPI document as the server admin, whom few permission checks stop, so that what is
 * sent reaches each operation's own validation and lookups. Objects of every kind the paths name
 * exist, so a path's ids can be real while its query or body is not.
 */

const ADMIN = { email: "bad-input-admin@example.com", password: "bad input admin password" };

let server: TestServer;
let token: string;
let document: OpenApiDocument;
let realIds: RealIds = {};
const api = jsonApi(() => server);
const { must } = api;

beforeAll(async () => {
  ({ server, adminToken: token } = await startServerWithAdmin(ADMIN, { API_WRITES_PER_MINUTE: "100000" }));
  document = await openApiDocument(server);
});
afterAll(() => server?.stop());

const junkIds = [...JUNK_IDS, "no_such_id"];
const junkQuery =
  `?limit=-1&limit=abc&cursor=%00&cursor=${"c".repeat(3000)}&all=maybe&q=%00${"q".repeat(3000)}&status=nowhere&from=yesterday&to=0000-01-01` +
  "&night=not-a-date&format=exe&sort=sideways&order=upwards&scope=nowhere&priority=eleven&name=&kind=%00&autoFixable=perhaps&severity=9";
const [malformedJson] = JUNK_BODIES;
const emptyObject: JunkBody = { label: "an empty object", body: "{}", contentType: "application/json" };
const junkBodies: JunkBody[] = [
  ...JUNK_BODIES,
  { label: "JSON null", body: "null", contentType: "application/json" },
  emptyObject,
  {
    label: "NUL and control characters",
    body: JSON.stringify({ name: "a\u0000b", shortName: "\u0007", description: "\u0000", email: "a\u0000@example.com", title: "\u0000", body: "\u0000" }),
    contentType: "application/json",
  },
  { label: "deeply nested", body: `${"[".repeat(2000)}${"]".repeat(2000)}`, contentType: "application/json" },
];

interface Probe {
  method: string;
  label: string;
  url: string;
  body?: JunkBody;
}

/** For each operation: real ids with each junk body (or none) and the junk query; junk ids with an empty object or nothing. */
function probesFor(method: string, path: string, operation: WalkedOperation): Probe[] {
  const real = withRealIds(path, realIds);
  const hasBody = operation.requestBody !== undefined;
  const probes: Probe[] = [];
  if (real !== undefined) {
    // fetch sends no body with a GET; an operation that takes none ignores one (a DELETE's malformed JSON included).
    const bodies = hasBody ? junkBodies : method === "GET" ? [undefined] : [undefined, malformedJson];
    for (const body of bodies) probes.push({ method, label: `${method} ${real} with ${body?.label ?? "no body"}`, url: real, body });
    probes.push({ method, label: `${method} ${real} with a junk query`, url: `${real}${junkQuery}`, body: hasBody ? emptyObject : undefined });
  }
  if (path.includes("{"))
    for (const id of junkIds) {
      const url = path.replace(/\{[^}]+\}/g, id);
      probes.push({ method, label: `${method} ${url.slice(0, 60)} (junk id)`, url, body: hasBody ? emptyObject : undefined });
    }
  return probes;
}

describe("bad input from a signed-in caller", () => {
  it("the document's operations are all walked, most of them with real ids", async () => {
    realIds = await freshObjects(api, token);
    const operations = walkedOperations(document);
    const probes = operations.flatMap(({ method, path, operation }) => probesFor(method, path, operation));
    expect(operations.length).toBeGreaterThan(150);
    expect(probes.length).toBeGreaterThan(operations.length * 3);
    // Parameters without a real id here (keys, announcements, invitations, files...) are still walked with junk ids.
    const paths = Object.keys(document.paths);
    expect(paths.filter((path) => withRealIds(path, realIds) !== undefined).length).toBeGreaterThan(paths.length / 2);
  });

  // About a thousand requests, a few at a time.
  it("is answered below 500 by every operation, a refusal as problem+json with a code and a readable detail", { timeout: 300_000 }, async () => {
    realIds = await freshObjects(api, token);
    const failures: string[] = [];
    const probes = walkedOperations(document).flatMap(({ method, path, operation }) => probesFor(method, path, operation));
    for (let start = 0; start < probes.length; start += 6) {
      await Promise.all(
        probes.slice(start, start + 6).map(async (probe) => {
          const response = await fetch(`${server.url}${probe.url}`, {
            method: probe.method,
            headers: { authorization: `Bearer ${token}`, ...(probe.body?.contentType ? { "content-type": probe.body.contentType } : {}) },
            body: probe.method === "GET" ? undefined : probe.body?.body,
          });
          const problem = restAnswerProblem(response.status, response.headers.get("content-type"), await response.text());
          if (problem) failures.push(`${probe.label}: ${problem}`);
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
    realIds = await freshObjects(api, token);
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
          if (STACK_TRACE.test(text)) return void failures.push(`${path} ${input.slice(0, 40)}: a stack frame in ${text.slice(0, 200)}`);
          const body = JSON.parse(text) as { error?: { data?: { code?: unknown } } };
          if (body.error && typeof body.error.data?.code !== "string") failures.push(`${path} ${input.slice(0, 40)}: no code in ${text.slice(0, 200)}`);
        }),
      );
    expect(failures).toEqual([]);
    await must("/api/v1/auth/me", { token }, 200);
  });
});
