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

describe("the cap on a user's live API keys", () => {
  const CAP = 100;
  const refusal = `An account holds at most ${CAP} API keys; revoke one first`;
  const create = (token: string, name: string) => server.request("/api/v1/user/api-keys", { method: "POST", token, json: { name } });
  const listed = async (token: string) => {
    const response = await server.request("/api/v1/user/api-keys", { token });
    expect(response.status).toBe(200);
    return (await response.json()) as { items: Array<{ id: string }>; nextCursor: string | null };
  };

  it("answers 409 CONFLICT past 100 live keys, even to concurrent creations, and lists every live key", async () => {
    const owner = await createAccount(server);
    const answers: Response[] = [];
    // Eight at a time: creations racing for the last places must not both pass the cap.
    for (let start = 0; start < CAP + 6; start += 8)
      answers.push(...(await Promise.all(Array.from({ length: Math.min(8, CAP + 6 - start) }, (_, offset) => create(owner.token, `key ${start + offset}`)))));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(CAP);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(6);
    for (const answer of refused) expect((await expectProblem(answer, 409, "CONFLICT")).detail).toBe(refusal);
    const list = await listed(owner.token);
    expect(list.nextCursor).toBeNull();
    expect(list.items).toHaveLength(CAP);
    expect(new Set(list.items.map((item) => item.id)).size).toBe(CAP);
  });

  it("frees a place when a key is revoked, and counts only the user's own keys", async () => {
    const owner = await createAccount(server);
    const other = await createAccount(server);
    const keys: Array<{ id: string; key: string }> = [];
    for (let start = 0; start < CAP; start += 10)
      keys.push(...(await Promise.all(Array.from({ length: 10 }, (_, offset) => createApiKey(server, owner.token, `key ${start + offset}`)))));
    const refused = await expectProblem(await create(owner.token, "one too many"), 409, "CONFLICT");
    expect(refused).toMatchObject({ title: "Conflict", detail: refusal });
    // Another user's keys are not counted.
    expect((await create(other.token, "unrelated")).status).toBe(201);
    // The same refusal through tRPC, whose message the key form shows.
    const trpc = await server.request("/trpc/user.createApiKey", { method: "POST", token: owner.token, json: { name: "via tRPC" } });
    expect(trpc.status).toBe(409);
    expect(((await trpc.json()) as { error: { message: string; data: { code: string } } }).error).toMatchObject({
      message: refusal,
      data: { code: "CONFLICT" },
    });

    expect((await server.request(`/api/v1/user/api-keys/${keys[0]!.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await listed(owner.token)).items).toHaveLength(CAP - 1);
    const replacement = await create(owner.token, "replacement");
    expect(replacement.status).toBe(201);
    const { key } = (await replacement.json()) as { key: string };
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(200);
    const list = await listed(owner.token);
    expect(list.items).toHaveLength(CAP);
    expect(list.items.map((item) => item.id)).not.toContain(keys[0]!.id);
    await expectProblem(await create(owner.token, "still too many"), 409, "CONFLICT");
  });
});
