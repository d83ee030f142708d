import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { valueAtEdge, type Edge } from "../support/boundary-values";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { freshObjects, openApiDocument, restAnswerProblem, walkedOperations, withRealIds, type OpenApiDocument, type RealIds } from "../support/operation-walk";
import type { TestServer } from "../support/test-server";

/**
 * Input its schema lets through, at the schema's edges, reaches the database: every operation
 * with real ids in its path is sent its body and query at their longest, largest and fullest, and
 * at their shortest, smallest and barest, as the server admin. Each answer is below 500, and a
 * refusal is a coded problem (what each answer says is each operation's own tests' to check).
 */

const ADMIN = { email: "edge-input-admin@example.com", password: "edge input admin password" };
const EDGES: Edge[] = ["most", "least"];

let server: TestServer;
let token: string;
let document: OpenApiDocument;
const api = jsonApi(() => server);
const { must } = api;

beforeAll(async () => {
  ({ server, adminToken: token } = await startServerWithAdmin(ADMIN, { API_WRITES_PER_MINUTE: "100000", LOG_LEVEL: "error" }));
  document = await openApiDocument(server);
});
afterAll(() => server?.stop());

type Walked = ReturnType<typeof walkedOperations>[number];

/** An operation with real ids at each edge: the URL with its query, and the JSON body when it takes one; none without real ids. */
function requestsAtEdges({ method, path, operation }: Walked, ids: RealIds) {
  const components = document.components?.schemas ?? {};
  const named = (name: string) => ids[name];
  const url = withRealIds(path, ids);
  if (url === undefined) return [];
  return EDGES.map((edge) => {
    const query = new URLSearchParams();
    // A cursor is one a list gave: any other is refused before the list is read, so none is sent.
    for (const parameter of operation.parameters ?? [])
      if (parameter.in === "query" && parameter.name !== "cursor") {
        const value = named(parameter.name) ?? valueAtEdge(parameter.schema, edge, { components, named, name: parameter.name });
        for (const each of Array.isArray(value) ? value : [value]) if (each !== null && each !== undefined) query.append(parameter.name, String(each));
      }
    const schema = operation.requestBody?.content["application/json"]?.schema;
    const body = schema === undefined ? undefined : valueAtEdge(schema, edge, { components, named });
    return { label: `${method} ${path} at its ${edge}`, method, url: `${url}${query.size > 0 ? `?${query}` : ""}`, body };
  });
}

/** The body without the top-level fields a 400 names, or undefined when it names none the body has. */
function withoutRefusedFields(body: unknown, refusal: string): Record<string, unknown> | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return undefined;
  const errors = (JSON.parse(refusal) as { errors?: Array<{ path: string }> }).errors ?? [];
  const fields = new Set(errors.map((error) => error.path.split(".")[0]!));
  const kept = Object.fromEntries(Object.entries(body).filter(([field]) => !fields.has(field)));
  return Object.keys(kept).length < Object.keys(body).length ? kept : undefined;
}

describe("input at its schema's edges, from a signed-in caller", () => {
  it("is answered below 500 by every operation, a refusal as a coded problem", { timeout: 300_000 }, async () => {
    const failures: string[] = [];
    const send = async (label: string, request: ReturnType<typeof requestsAtEdges>[number], body: unknown) => {
      const response = await fetch(`${server.url}${request.url}`, {
        method: request.method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      const problem = restAnswerProblem(response.status, response.headers.get("content-type"), text);
      if (problem) failures.push(`${label}: ${problem}`);
      return { status: response.status, text };
    };
    let retried = 0;
    let ids = await freshObjects(api, token);
    let sent = 0;
    let withBodies = 0;
    // One at a time: an edge that takes a lock or a slot should not be judged by its neighbour's. A write gets
    // objects of its own, as found after their creation: an earlier edge may have archived, moved or removed the last ones.
    for (const walked of walkedOperations(document)) {
      if (walked.method !== "GET") ids = await freshObjects(api, token, ids["/organizations"]);
      for (const request of requestsAtEdges(walked, ids)) {
        sent += 1;
        if (request.body !== undefined) withBodies += 1;
        let answer = await send(request.label, request, request.body);
        // A rule across fields (monitoring only for its type, a reason only for some actions) or a name no object has
        // refuses a body whole: again without the fields it names, a few times, so that the rest reaches the operation.
        let body = request.body;
        for (let attempt = 1; attempt <= 3 && answer.status === 400; attempt += 1) {
          const kept = withoutRefusedFields(body, answer.text);
          if (!kept) break;
          body = kept;
          retried += 1;
          answer = await send(`${request.label}, without the fields refused (${attempt})`, request, body);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(150);
    expect(withBodies).toBeGreaterThan(60);
    expect(retried).toBeGreaterThan(0);
    await must("/api/v1/auth/me", { token }, 200);
  });
});
