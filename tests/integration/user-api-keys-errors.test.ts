import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, describeAuthSuite, expectProblem, roomyLimits } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

describeAuthSuite(() => server, { method: "GET", path: "/api/v1/user/api-keys", prepare: () => ({ path: "/api/v1/user/api-keys" }), success: 200 });
describeAuthSuite(() => server, {
  method: "POST",
  path: "/api/v1/user/api-keys",
  prepare: () => ({ path: "/api/v1/user/api-keys", json: { name: "suite" } }),
  success: 201,
});
describeAuthSuite(() => server, {
  method: "DELETE",
  path: "/api/v1/user/api-keys/{id}",
  prepare: async (target, _account, token) => ({ path: `/api/v1/user/api-keys/${(await createApiKey(target, token, "to delete")).id}` }),
  success: 204,
});

describe("api-keys errors", () => {
  it("answers 404 NOT_FOUND when deleting someone else's key, which keeps working", async () => {
    const owner = await createAccount(server);
    const intruder = await createAccount(server);
    const { id, key } = await createApiKey(server, owner.token);
    await expectProblem(await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: intruder.token }), 404, "NOT_FOUND");
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(200);
  });

  it("answers the same 404 for someone else's key and for an unknown id", async () => {
    const owner = await createAccount(server);
    const intruder = await createAccount(server);
    const { id } = await createApiKey(server, owner.token);
    const foreign = await expectProblem(await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: intruder.token }), 404, "NOT_FOUND");
    const unknown = await expectProblem(
      await server.request("/api/v1/user/api-keys/key_doesnotexist", { method: "DELETE", token: intruder.token }),
      404,
      "NOT_FOUND",
    );
    expect({ ...foreign, instance: undefined }).toEqual({ ...unknown, instance: undefined });
  });

  it("answers 404 when deleting a key twice", async () => {
    const owner = await createAccount(server);
    const { id } = await createApiKey(server, owner.token);
    expect((await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    await expectProblem(await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: owner.token }), 404, "NOT_FOUND");
  });

  it.each([
    ["a missing name", {}],
    ["an empty name", { name: "" }],
    ["a blank name", { name: "   " }],
    ["a name over 100 characters", { name: "k".repeat(101) }],
    ["a numeric name", { name: 7 }],
    ["a null name", { name: null }],
    ["an object name", { name: { first: "a" } }],
    ["a name with NUL", { name: "nul\u0000" }],
    ["a name with a lone surrogate", { name: "half \ud800" }],
    ["an unknown field", { name: "ok", scopes: ["admin"] }],
    ["a client-chosen key", { name: "ok", key: "mak_chosen" }],
  ])("answers 400 VALIDATION_FAILED for %s", async (_label, json) => {
    const owner = await createAccount(server);
    await expectProblem(await server.request("/api/v1/user/api-keys", { method: "POST", token: owner.token, json }), 400, "VALIDATION_FAILED");
    const listing = await (await server.request("/api/v1/user/api-keys", { token: owner.token })).json();
    expect(listing.items).toEqual([]);
  });

  it("answers 400 for an id with control characters", async () => {
    const owner = await createAccount(server);
    for (const id of ["%00", "key%0A1"]) {
      const response = await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: owner.token });
      await expectProblem(response, 400, "VALIDATION_FAILED");
    }
  });

  it("answers 405 for PUT on the collection and on an item", async () => {
    const owner = await createAccount(server);
    const collection = await server.request("/api/v1/user/api-keys", { method: "PUT", token: owner.token, json: {} });
    await expectProblem(collection, 405, "METHOD_NOT_ALLOWED");
    expect(collection.headers.get("allow")).toBe("GET, HEAD, POST");
    const item = await server.request("/api/v1/user/api-keys/key_x", { method: "GET", token: owner.token });
    await expectProblem(item, 405, "METHOD_NOT_ALLOWED");
    expect(item.headers.get("allow")).toBe("DELETE");
  });
});
