import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { valueAtEdge } from "../support/boundary-values";
import { jsonApi, startServerWithAdmin } from "../support/json-api";
import { freshObjects, openApiDocument, restAnswerProblem, walkedOperations, withRealIds, type OpenApiDocument } from "../support/operation-walk";
import type { TestServer } from "../support/test-server";

/**
 * Who may act on which object, walked over every operation: a signed-in user who belongs to
 * nothing calls each operation that names another user's organization, observatory, project,
 * observation or account, and is refused (403 or 404, as a coded problem) by every one but those
 * the contract opens to any signed-in user. Nothing of the owner's changes.
 */

const ADMIN = { email: "stranger-walk-admin@example.com", password: "stranger walk admin password" };

/** Operations any signed-in user may call with another's ids, and why. */
const OPEN_TO_ANY_USER = new Map([
  // An avatar is shown beside a name wherever the name is (member lists, announcements' authors).
  ["GET /api/v1/users/{id}/avatar", "any signed-in user may read avatars (its OpenAPI description)"],
]);

let server: TestServer;
let adminToken: string;
let stranger: Account;
let document: OpenApiDocument;
const api = jsonApi(() => server);

beforeAll(async () => {
  ({ server, adminToken } = await startServerWithAdmin(ADMIN, { API_WRITES_PER_MINUTE: "100000" }));
  stranger = await createAccount(server);
  document = await openApiDocument(server);
});
afterAll(() => server?.stop());

describe("a signed-in stranger", () => {
  it("is refused by every operation that names another user's objects, and changes nothing of theirs", { timeout: 300_000 }, async () => {
    const ids = await freshObjects(api, adminToken);
    const before = await ownerView(ids);
    const failures: string[] = [];
    let walked = 0;
    const components = document.components?.schemas ?? {};
    const named = (name: string) => ids[name];
    const refusedForInput: string[] = [];
    for (const { method, path, operation } of walkedOperations(document)) {
      if (!path.includes("{")) continue;
      const url = withRealIds(path, ids);
      if (url === undefined) continue;
      walked += 1;
      // A body its schema takes (required fields only), so that what answers is the caller's right, not the input.
      const schema = operation.requestBody?.content["application/json"]?.schema;
      const body = schema === undefined ? undefined : JSON.stringify(valueAtEdge(schema, "least", { components, named }));
      const response = await fetch(`${server.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${stranger.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body,
      });
      const text = await response.text();
      const problem = restAnswerProblem(response.status, response.headers.get("content-type"), text);
      if (problem) failures.push(`${method} ${path}: ${problem}`);
      else if (OPEN_TO_ANY_USER.has(`${method} ${path}`)) continue;
      else if (response.status === 400) refusedForInput.push(`${method} ${path}`);
      else if (![403, 404].includes(response.status)) failures.push(`${method} ${path}: ${response.status} ${text.slice(0, 160)}`);
    }
    expect(failures).toEqual([]);
    expect(walked).toBeGreaterThan(60);
    // A refusal of the input says nothing of the caller's right: few may end there.
    expect(refusedForInput.length, refusedForInput.join("\n")).toBeLessThan(walked / 10);
    expect(await ownerView(ids)).toEqual(before);
  });
});

/** What the owner sees of the walked objects: any change a stranger made would show here. */
async function ownerView(ids: Record<string, string>) {
  const read = (path: string) => api.must(path, { token: adminToken }, 200);
  return {
    organization: await read(`/organizations/${ids["/organizations"]}`),
    members: await read(`/organizations/${ids["/organizations"]}/members`),
    observatory: await read(`/observatories/${ids["/observatories"]}`),
    keys: await read(`/observatories/${ids["/observatories"]}/api-keys`),
    project: await read(`/projects/${ids["/projects"]}`),
    observation: await read(`/observations/${ids["/observations"]}`),
    me: await read("/api/v1/auth/me"),
  };
}
