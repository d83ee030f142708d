import { createHash } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let sql: postgres.Sql;
let account: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  sql = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
  account = await createAccount(server);
});
afterAll(async () => {
  await sql?.end();
  await server?.stop();
});

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const create = (token: string, name: string) => server.request("/api/v1/user/api-keys", { method: "POST", token, json: { name } });
const list = async (token: string) => {
  const response = await server.request("/api/v1/user/api-keys", { token });
  expect(response.status).toBe(200);
  return { text: await response.clone().text(), body: (await response.json()) as { items: Array<Record<string, unknown>>; nextCursor: string | null } };
};

describe("POST /api/v1/user/api-keys", () => {
  it("answers 201 {id, name, key, createdAt}", async () => {
    const response = await create(account.token, "CI uploader");
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toEqual({ id: expect.any(String), name: "CI uploader", key: expect.any(String), createdAt: expect.any(String), expiresAt: null });
    expect(body.key.length).toBeGreaterThanOrEqual(32);
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
  });

  it("returns a key that works as a Bearer token for its owner", async () => {
    const { key } = await (await create(account.token, "works")).json();
    const me = await server.request("/api/v1/auth/me", { token: key });
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(account.id);
    const profile = await server.request("/api/v1/user/profile", { method: "PUT", token: key, json: { name: "Via key" } });
    expect(profile.status).toBe(200);
  });

  it("gives every key a different secret", async () => {
    const first = await (await create(account.token, "same name")).json();
    const second = await (await create(account.token, "same name")).json();
    expect(first.key).not.toBe(second.key);
    expect(first.id).not.toBe(second.id);
  });

  it("trims the name and accepts any script and emoji", async () => {
    const body = await (await create(account.token, "  Observatoire 🔭 東京  ")).json();
    expect(body.name).toBe("Observatoire 🔭 東京");
  });
});

describe("GET /api/v1/user/api-keys", () => {
  it("lists the caller's keys newest first, without the key or its hash", async () => {
    const owner = await createAccount(server);
    const older = await (await create(owner.token, "older")).json();
    const newer = await (await create(owner.token, "newer")).json();
    const { text, body } = await list(owner.token);
    expect(body.nextCursor).toBeNull();
    expect(body.items.map((item) => item.id)).toEqual([newer.id, older.id]);
    expect(body.items[0]).toMatchObject({ id: newer.id, name: "newer", createdAt: newer.createdAt });
    for (const item of body.items) {
      expect(Object.keys(item)).not.toContain("key");
      expect(Object.keys(item).some((field) => /hash/i.test(field))).toBe(false);
    }
    for (const secret of [older.key, newer.key]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(sha256(secret));
    }
  });

  it("shows only the caller's own keys", async () => {
    const alice = await createAccount(server);
    const bob = await createAccount(server);
    await create(alice.token, "alice's");
    expect((await list(bob.token)).body.items).toEqual([]);
    expect((await list(alice.token)).body.items.map((item) => item.name)).toEqual(["alice's"]);
  });

  it("works with the key itself and records when it was last used", async () => {
    const owner = await createAccount(server);
    const { id, key } = await (await create(owner.token, "self")).json();
    const { body } = await list(key);
    const item = body.items.find((entry) => entry.id === id);
    expect(item).toBeDefined();
    expect(typeof item!.lastUsedAt).toBe("string");
  });
});

describe("DELETE /api/v1/user/api-keys/{id}", () => {
  it("answers 204, the key stops working and leaves the list", async () => {
    const owner = await createAccount(server);
    const keep = await (await create(owner.token, "keep")).json();
    const drop = await (await create(owner.token, "drop")).json();
    expect((await server.request("/api/v1/auth/me", { token: drop.key })).status).toBe(200);
    const response = await server.request(`/api/v1/user/api-keys/${drop.id}`, { method: "DELETE", token: owner.token });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    await expectProblem(await server.request("/api/v1/auth/me", { token: drop.key }), 401, "UNAUTHENTICATED");
    expect((await server.request("/api/v1/auth/me", { token: keep.key })).status).toBe(200);
    expect((await list(owner.token)).body.items.map((item) => item.id)).toEqual([keep.id]);
  });

  it("lets a key revoke itself", async () => {
    const owner = await createAccount(server);
    const { id, key } = await (await create(owner.token, "self-destruct")).json();
    expect((await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: key })).status).toBe(204);
    await expectProblem(await server.request("/api/v1/auth/me", { token: key }), 401, "UNAUTHENTICATED");
  });
});

describe("storage of secrets", () => {
  it("stores only a hash of API keys in api_keys", async () => {
    const owner = await createAccount(server);
    const { id, key } = await (await create(owner.token, "hashed")).json();
    const rows = await sql<Array<{ id: string; key_hash: string; row: string }>>`select id, key_hash, row_to_json(k)::text as row from api_keys k`;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.row).not.toContain(key);
    const stored = rows.find((row) => row.id === id);
    expect(stored?.key_hash).toBe(sha256(key));
  });

  it("stores only a hash of session tokens in sessions", async () => {
    const owner = await createAccount(server);
    const rows = await sql<
      Array<{ token_hash: string; row: string }>
    >`select token_hash, row_to_json(s)::text as row from sessions s where user_id = ${owner.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row).not.toContain(owner.token);
    expect(rows[0]!.token_hash).toBe(sha256(owner.token));
    const everything = await sql<Array<{ row: string }>>`select row_to_json(s)::text as row from sessions s`;
    for (const row of everything) expect(row.row).not.toContain(owner.token);
  });

  it("stores no plaintext password in users", async () => {
    const owner = await createAccount(server, { password: "plaintext canary 7731" });
    const [row] = await sql<Array<{ row: string }>>`select row_to_json(u)::text as row from users u where id = ${owner.id}`;
    expect(row?.row).toBeDefined();
    expect(row!.row).not.toContain("plaintext canary 7731");
    expect(row!.row).toMatch(/\$argon2id\$/);
  });
});
