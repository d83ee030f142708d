import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { controlServerClock, type TestClock } from "../support/test-clock";
import { startTestServer, type TestServer } from "../support/test-server";

const PER_MINUTE = 3;
let server: TestServer;
let clock: TestClock;
beforeAll(async () => {
  server = await startTestServer({ API_WRITES_PER_MINUTE: String(PER_MINUTE), SIGNUPS_PER_IP_PER_HOUR: "1000" });
  clock = controlServerClock(server, Date.parse("2026-11-27T12:00:00Z"));
});
afterAll(() => server?.stop());
const { call, createOrganization } = jsonApi(() => server);

/** `count` organizations created by `owner`, each answered 201. */
async function spend(owner: Account, count: number) {
  for (let n = 0; n < count; n += 1) await createOrganization(owner);
}

const renameSelf = (account: Account) => call("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name: "Renamed" } });

/**
 * A tRPC request of `count` organizations.create mutations in one batch, its procedures joined by
 * `separator` (tRPC decodes the path, so "%2C" is a comma to it).
 */
function batchOfCreates(account: Account, count: number, separator = ",") {
  const input: Record<string, unknown> = {};
  for (let n = 0; n < count; n += 1) {
    const tag = `${Date.now().toString(36)}${n}${Math.random().toString(36).slice(2, 6)}`;
    input[n] = { name: `Batch ${tag}`, shortName: `batch-${tag}`, type: "other", contactEmail: `${tag}@example.com` };
  }
  const path = Array.from({ length: count }, () => "organizations.create").join(separator);
  return fetch(`${server.url}/trpc/${path}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${account.token}` },
    body: JSON.stringify(input),
  });
}

/** The Meridian code of each call of a tRPC batch's answer ("OK" for a result). */
async function batchCodes(response: Response): Promise<string[]> {
  const calls = (await response.json()) as Array<{ error?: { data: { code: string; httpStatus: number } } }>;
  return calls.map((call) => call.error?.data.code ?? "OK");
}

describe("writes per account and minute (API_WRITES_PER_MINUTE)", () => {
  it("refuses the write past the bucket with 429 RATE_LIMITED and Retry-After, until the bucket refills", async () => {
    const owner = await createAccount(server);
    await spend(owner, PER_MINUTE);
    const refused = await renameSelf(owner);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(refused.body.detail).toContain(`${PER_MINUTE} changes a minute`);
    // One write comes back every 60 / PER_MINUTE seconds.
    expect(refused.headers.get("retry-after")).toBe(String(60 / PER_MINUTE));

    // Reads are not counted.
    expect((await call("/api/v1/auth/me", { token: owner.token })).status).toBe(200);
    expect((await call("/organizations", { token: owner.token })).body.items).toHaveLength(PER_MINUTE);

    clock.set(clock.now() + 60_000 / PER_MINUTE - 1);
    expect((await renameSelf(owner)).status).toBe(429);
    clock.set(clock.now() + 1);
    expect((await renameSelf(owner)).status).toBe(200);
    expect((await renameSelf(owner)).status).toBe(429);
  });

  it("says on each counted REST write what is left (RateLimit-Limit, -Remaining, -Reset in seconds), and nothing on reads", async () => {
    const owner = await createAccount(server);
    const allowance = (response: { headers: Headers }) =>
      ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"].map((name) => response.headers.get(name));
    // A full bucket less one write: 2 left, full again in the 20 s one write takes to come back.
    expect(allowance(await renameSelf(owner))).toEqual([String(PER_MINUTE), "2", "20"]);
    expect(allowance(await renameSelf(owner))).toEqual([String(PER_MINUTE), "1", "40"]);
    // Ten seconds on, half a write has come back: still 1 whole write left once this one is taken, full in 50 s.
    clock.set(clock.now() + 10_000);
    expect(allowance(await renameSelf(owner))).toEqual([String(PER_MINUTE), "0", "50"]);
    expect(allowance(await call("/api/v1/auth/me", { token: owner.token }))).toEqual([null, null, null]);
    const refused = await renameSelf(owner);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
  });

  it("counts each account on its own, and never holds back signing out", async () => {
    const busy = await createAccount(server);
    const other = await createAccount(server);
    await spend(busy, PER_MINUTE);
    expect((await renameSelf(busy)).status).toBe(429);
    expect((await renameSelf(other)).status).toBe(200);
    expect((await call("/api/v1/auth/logout", { method: "POST", token: busy.token })).status).toBe(204);
  });

  it("counts each mutation of a tRPC batch, however its path separates them, and refuses a batch of more than 50 procedures with 400", async () => {
    const owner = await createAccount(server);
    expect(await batchCodes(await batchOfCreates(owner, 2))).toEqual(["OK", "OK"]);
    const second = await batchOfCreates(owner, 2);
    expect(await batchCodes(second)).toEqual(["OK", "RATE_LIMITED"]);
    expect(second.headers.get("retry-after")).toBe(String(60 / PER_MINUTE));
    expect((await call("/organizations", { token: owner.token })).body.items).toHaveLength(PER_MINUTE);

    // Commas written as %2C are commas to tRPC: each of these mutations counts too.
    const encoded = await createAccount(server);
    expect(await batchCodes(await batchOfCreates(encoded, PER_MINUTE + 2, "%2C"))).toEqual([
      ...Array.from({ length: PER_MINUTE }, () => "OK"),
      "RATE_LIMITED",
      "RATE_LIMITED",
    ]);
    expect((await call("/organizations", { token: encoded.token })).body.items).toHaveLength(PER_MINUTE);

    const tooLarge = await fetch(`${server.url}/trpc/${Array.from({ length: 51 }, () => "auth.me").join(",")}?batch=1`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(tooLarge.status).toBe(400);
  });

  it("answers a tRPC mutation past the rate as a tRPC error with the Meridian code and Retry-After", async () => {
    const owner = await createAccount(server);
    await spend(owner, PER_MINUTE);
    const refused = await fetch(`${server.url}/trpc/user.updateProfile`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ name: "Renamed" }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(60 / PER_MINUTE));
    const body = (await refused.json()) as { error: { message: string; data: { code: string; httpStatus: number } } };
    expect(body.error.data).toMatchObject({ code: "RATE_LIMITED", httpStatus: 429 });
    expect(body.error.message).toContain(`${PER_MINUTE} changes a minute`);
  });

  it("counts a bulk operation as the observations it names", async () => {
    const owner = await createAccount(server);
    await spend(owner, 1);
    const ids = Array.from({ length: PER_MINUTE }, (_, index) => `obs_missing_${index}`);
    const refused = await call("/observations/bulk", { method: "POST", token: owner.token, json: { ids, action: "pause" } });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: "RATE_LIMITED" });
    const fits = await call("/observations/bulk", { method: "POST", token: owner.token, json: { ids: ids.slice(1), action: "pause" } });
    expect(fits.status).toBe(200);
  });

  it("does not count writes without credentials: they are answered 401", async () => {
    for (let n = 0; n <= PER_MINUTE; n += 1) {
      const anonymous = await call("/organizations", { method: "POST", json: {} });
      expect(anonymous.status).toBe(401);
    }
  });
});
