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
const { must } = jsonApi(() => server);

beforeAll(async () => {
  ({ server, adminToken: token } = await startServerWithAdmin(ADMIN, { API_WRITES_PER_MINUTE: "100000", LOG_LEVEL: "error" }));
  document = await openApiDocument(server);
});
afterAll(() => server?.stop());

/** Each operation with real ids, at each edge: the URL with its query, and the JSON body when it takes one. */
function requestsAtEdges(ids: RealIds) {
  const components = document.components?.schemas ?? {};
  const named = (name: string) => ids[name];
  return walkedOperations(document).flatMap(({ method, path, operation }) => {
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
      const body = schema === undefined ? undefined : JSON.stringify(valueAtEdge(schema, edge, { components, named }));
      return { label: `${method} ${path} at its ${edge}`, method, url: `${url}${query.size > 0 ? `?${query}` : ""}`, body };
    });
  });
}

describe("input at its schema's edges, from a signed-in caller", () => {
  it("is answered below 500 by every operation, a refusal as a coded problem", { timeout: 300_000 }, async () => {
    const requests = requestsAtEdges(await freshObjects(must, token));
    expect(requests.length).toBeGreaterThan(150);
    expect(requests.filter((request) => request.body !== undefined).length).toBeGreaterThan(60);
    const failures: string[] = [];
    // One at a time: an edge that takes a lock or a slot should not be judged by its neighbour's.
    for (const request of requests) {
      const response = await fetch(`${server.url}${request.url}`, {
        method: request.method,
        headers: { authorization: `Bearer ${token}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
        body: request.body,
      });
      const problem = restAnswerProblem(response.status, response.headers.get("content-type"), await response.text());
      if (problem) failures.push(`${request.label}: ${problem}`);
    }
    expect(failures).toEqual([]);
    await must("/api/v1/auth/me", { token }, 200);
  });
});
