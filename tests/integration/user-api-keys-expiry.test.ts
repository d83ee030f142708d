import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, expectProblem, roomyLimits } from "../support/auth-suite";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestServer, type TestServer } from "../support/test-server";
import { connectWebSocket } from "../support/ws-client";

let server: TestServer;
let sql: postgres.Sql;
let clock: TestClock;
beforeAll(async () => {
  // An hour of cache: a key used before its expiry would still be served from the cache after it, unless the cache honours the expiry.
  server = await startTestServer({ ...roomyLimits, REQUEST_CACHE_TTL_MS: "3600000" });
  sql = postgres(server.databaseUrl, { max: 1, onnotice: () => undefined });
  clock = controlServerClock(server, Date.now());
});
afterAll(async () => {
  await sql?.end();
  await server?.stop();
});

const DAY_MS = 24 * 60 * 60 * 1000;
const inFromNow = (ms: number) => new Date(clock.now() + ms).toISOString();

interface ListedKey {
  id: string;
  name: string;
  expiresAt: string | null;
  expired: boolean;
}
const create = (token: string, json: Record<string, unknown>) => server.request("/api/v1/user/api-keys", { method: "POST", token, json });
const list = async (token: string) => {
  const response = await server.request("/api/v1/user/api-keys", { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: ListedKey[] }).items;
};
const me = (token: string) => server.request("/api/v1/auth/me", { token });

describe("an API key's expiry", () => {
  it("is stored, answered at creation and listed, normalized to UTC", async () => {
    const owner = await createAccount(server);
    const expiresAt = new Date(Math.floor((clock.now() + 90 * DAY_MS) / 1000) * 1000);
    // The same moment written with another zone's offset.
    const written = new Date(expiresAt.getTime() + 2 * 60 * 60 * 1000).toISOString().replace(/\.000Z$/, "+02:00");
    const response = await create(owner.token, { name: "expiring", expiresAt: written });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { id: string; key: string; expiresAt: string | null };
    expect(body.expiresAt).toBe(expiresAt.toISOString());
    expect(await list(owner.token)).toEqual([expect.objectContaining({ id: body.id, expiresAt: expiresAt.toISOString(), expired: false })]);
    expect((await me(body.key)).status).toBe(200);
  });

  it("is never when absent or null, as for callers that do not know of it", async () => {
    const owner = await createAccount(server);
    const absent = await create(owner.token, { name: "absent" });
    const nulled = await create(owner.token, { name: "null", expiresAt: null });
    expect([absent.status, nulled.status]).toEqual([201, 201]);
    expect(((await absent.json()) as { expiresAt: unknown }).expiresAt).toBeNull();
    expect(((await nulled.json()) as { expiresAt: unknown }).expiresAt).toBeNull();
    for (const item of await list(owner.token)) expect(item).toMatchObject({ expiresAt: null, expired: false });
  });

  it("may lie exactly 366 days ahead", async () => {
    const owner = await createAccount(server);
    expect((await create(owner.token, { name: "a year", expiresAt: inFromNow(366 * DAY_MS) })).status).toBe(201);
  });

  it.each([
    ["in the past", () => inFromNow(-60_000), "must lie in the future"],
    ["now", () => inFromNow(0), "must lie in the future"],
    ["more than 366 days ahead", () => inFromNow(366 * DAY_MS + 1000), "must lie at most 366 days ahead"],
    ["malformed", () => "next tuesday", undefined],
    ["a day without a time", () => "2027-03-12", undefined],
    ["without a zone", () => inFromNow(DAY_MS).replace("Z", ""), undefined],
    ["a number", () => clock.now() + DAY_MS, undefined],
    ["in year 10000", () => "+010000-01-01T00:00:00Z", undefined],
  ])("is refused with 400 VALIDATION_FAILED naming the field when %s", async (_label, expiresAt, predicate) => {
    const owner = await createAccount(server);
    const problem = await expectProblem(await create(owner.token, { name: "refused", expiresAt: expiresAt() }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.length).toBeGreaterThan(0);
    for (const error of problem.errors!) expect(error).toEqual({ path: "expiresAt", message: expect.stringMatching(/^Expires at .*\.$/) });
    if (predicate) expect(problem.errors![0]!.message).toContain(predicate);
    expect(await list(owner.token)).toEqual([]);
  });

  it("ends the key at that moment, though it was used (and cached) before, and leaves it listed as expired", async () => {
    const owner = await createAccount(server);
    const { id, key } = (await (await create(owner.token, { name: "short", expiresAt: inFromNow(60_000) })).json()) as { id: string; key: string };
    expect((await me(key)).status).toBe(200);
    expect((await me(key)).status).toBe(200);

    clock.set(clock.now() + 60_000);
    await expectProblem(await me(key), 401, "UNAUTHENTICATED");
    const unknown = await expectProblem(await me("mak_thisisnotakeyanyoneeverheld0000000000"), 401, "UNAUTHENTICATED");
    const expired = await expectProblem(await me(key), 401, "UNAUTHENTICATED");
    expect({ ...expired, instance: undefined }).toEqual({ ...unknown, instance: undefined });

    const trpc = await server.request("/trpc/user.apiKeys", { token: key });
    expect(trpc.status).toBe(401);
    const socket = await connectWebSocket(`${server.url.replace(/^http/, "ws")}/ws`, { authorization: `Bearer ${key}` });
    expect(socket.ok ? "opened" : socket.status).toBe(401);

    expect(await list(owner.token)).toEqual([expect.objectContaining({ id, expired: true })]);
    expect((await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect(await list(owner.token)).toEqual([]);
  });

  it("ends a key whose stored expiry passed, one made before expiry existed becoming expired alike", async () => {
    const owner = await createAccount(server);
    const { id, key } = await createApiKey(server, owner.token, "old");
    // A key stored before keys could expire: no expiresAt in its document at all.
    await sql`update api_keys set doc = doc - 'expiresAt' where id = ${id}`;
    expect(await list(owner.token)).toEqual([expect.objectContaining({ id, expiresAt: null, expired: false })]);
    const past = inFromNow(-1000);
    await sql`update api_keys set doc = jsonb_set(doc, '{expiresAt}', to_jsonb(${past}::text)) where id = ${id}`;
    await expectProblem(await me(key), 401, "UNAUTHENTICATED");
    expect(await list(owner.token)).toEqual([expect.objectContaining({ id, expiresAt: past, expired: true })]);
  });

  it("counts expired keys toward the cap of 100 until they are revoked", async () => {
    const owner = await createAccount(server);
    const expiresAt = inFromNow(60_000);
    for (let start = 0; start < 100; start += 10)
      await Promise.all(
        Array.from({ length: 10 }, async (_, offset) => expect((await create(owner.token, { name: `k${start + offset}`, expiresAt })).status).toBe(201)),
      );
    clock.set(clock.now() + 60_000);
    const listed = await list(owner.token);
    expect(listed).toHaveLength(100);
    expect(listed.every((item) => item.expired)).toBe(true);
    await expectProblem(await create(owner.token, { name: "one more" }), 409, "CONFLICT");
    expect((await server.request(`/api/v1/user/api-keys/${listed[0]!.id}`, { method: "DELETE", token: owner.token })).status).toBe(204);
    expect((await create(owner.token, { name: "one more" })).status).toBe(201);
  });
});
