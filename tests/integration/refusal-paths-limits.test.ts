import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { createObservatoryKey } from "../support/observatory-keys";
import { openPluginSocket } from "../support/plugin-socket";
import { serverWithLimits } from "../support/server-with-limits";
import type { TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";

/*
 * Refusals of the limits that were only tested one at a time: an observatory key's writes
 * (API_WRITES_PER_MINUTE), a bulk larger than the whole bucket, and a sign-in that several
 * limits refuse at once.
 */

const MINUTE = 60_000;
const target = { name: "Capella", ra: 79.17, dec: 45.99, exposures: [{ filter: "V", exposureSeconds: 5, count: 1, binning: 1 }] };

interface Observation {
  id: string;
  status: string;
}

describe("writes per principal (API_WRITES_PER_MINUTE=3)", () => {
  const PER_MINUTE = 3;
  const limited = serverWithLimits({ API_WRITES_PER_MINUTE: String(PER_MINUTE) });
  let server: TestServer;
  let clock: TestClock;
  beforeAll(() => {
    ({ server, clock } = limited);
  });
  const { call, must } = jsonApi(() => server);

  /** Lets a minute pass, so every bucket is full again: the setup's writes never eat into what a test counts. */
  const refill = () => clock.set(clock.now() + MINUTE);
  /** One write of the setup, made with a full bucket. */
  const setupWrite = async <T>(write: () => Promise<T>) => {
    refill();
    return write();
  };
  const submit = (owner: Account, where: { projectId: string; observatoryId: string }) =>
    setupWrite(
      async () =>
        (await must(
          "/observations",
          { method: "POST", token: owner.token, json: { name: `Obs ${randomUUID().slice(0, 6)}`, ...where, targets: [target] } },
          201,
        )) as Observation,
    );
  const createProject = (owner: Account) =>
    setupWrite(async () => ((await must("/projects", { method: "POST", token: owner.token, json: { name: "Limits" } }, 201)) as { id: string }).id);
  const read = async (owner: Account, id: string) => (await must(`/observations/${id}`, { token: owner.token }, 200)) as Observation;
  const report = (key: string, id: string, status: string) => call(`/observations/${id}/status`, { method: "POST", token: key, json: { status } });
  const renameSelf = (account: Account) => call("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name: "Renamed" } });

  it("charges an observatory key's status reports to its observatory: 429 past the bucket, while its owner writes on and the key still connects", async () => {
    const owner = await createAccount(server);
    const { observatoryId, key } = await setupWrite(async () => {
      const observatory = (await must("/observatories", { method: "POST", token: owner.token, json: { name: "Key limits" } }, 201)) as { id: string };
      return { observatoryId: observatory.id, key: await createObservatoryKey(must, owner, observatory.id) };
    });
    const projectId = await createProject(owner);
    const observation = await submit(owner, { projectId, observatoryId });
    await setupWrite(() => must(`/observations/${observation.id}/status`, { method: "POST", token: owner.token, json: { status: "assigned" } }, 200));
    refill();

    for (const status of ["in_progress", "suspended", "in_progress"]) expect((await report(key, observation.id, status)).status).toBe(200);
    const refused = await report(key, observation.id, "acquisition_complete");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(refused.body.detail).toContain(`${PER_MINUTE} changes a minute`);
    expect(refused.headers.get("retry-after")).toBe(String(60 / PER_MINUTE));
    // Refused before it ran: the observation did not move.
    expect((await read(owner, observation.id)).status).toBe("in_progress");

    // The owner's account has a bucket of its own.
    expect((await renameSelf(owner)).status).toBe(200);
    // What a key reads comes over its connection, which the write rate does not count: it still connects and says hello.
    const socket = await openPluginSocket(server.url, key);
    try {
      expect(await socket.ask({ type: "hello", pluginVersion: "3.0.0", systemInfo: {}, equipment: {} })).toMatchObject({ type: "ack" });
    } finally {
      await socket.client.close();
    }

    // A second key of the same observatory draws on the same bucket: more keys are not more writes.
    const secondKey = await createObservatoryKey(must, owner, observatoryId);
    expect((await report(secondKey, observation.id, "acquisition_complete")).status).toBe(429);

    clock.set(clock.now() + MINUTE / PER_MINUTE);
    expect((await report(key, observation.id, "acquisition_complete")).status).toBe(200);
    expect((await report(secondKey, observation.id, "completed")).status).toBe(429);
  });

  it("refuses a bulk of more ids than the whole bucket with 413 PAYLOAD_TOO_LARGE, without Retry-After, changing nothing and charging nothing", async () => {
    const owner = await createAccount(server);
    const observatory = (await setupWrite(() => must("/observatories", { method: "POST", token: owner.token, json: { name: "Bulk limits" } }, 201))) as {
      id: string;
    };
    const projectId = await createProject(owner);
    const observations: Observation[] = [];
    for (let n = 0; n < 2 * PER_MINUTE; n += 1) observations.push(await submit(owner, { projectId, observatoryId: observatory.id }));
    const ids = observations.map((observation) => observation.id);
    refill();

    // However long it waited, a full bucket could not hold it: it is refused as too large, not asked to wait.
    const tooLarge = await call("/observations/bulk", { method: "POST", token: owner.token, json: { ids, action: "pause" } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("content-type")).toContain("application/problem+json");
    expect(tooLarge.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(tooLarge.body.detail).toBe(
      `This request makes ${ids.length} changes, more than the ${PER_MINUTE} a minute accepted from one account or key on this server; ` +
        `send them in parts of at most ${PER_MINUTE}`,
    );
    expect(tooLarge.headers.get("retry-after")).toBeNull();
    for (const id of ids) expect((await read(owner, id)).status).toBe("pending");

    // The refusal took nothing from the bucket: a bulk of exactly the bucket passes at once, and the next write waits.
    // A repeated id is acted on once, so it is not counted again.
    const repeating = [...ids.slice(0, PER_MINUTE), ids[0]!];
    const fits = await call("/observations/bulk", { method: "POST", token: owner.token, json: { ids: repeating, action: "pause" } });
    expect(fits.status).toBe(200);
    expect((fits.body as { results: Array<{ ok: boolean }> }).results.map((result) => result.ok)).toEqual(Array.from({ length: PER_MINUTE }, () => true));
    expect((await renameSelf(owner)).status).toBe(429);
    const statuses = await Promise.all(ids.map(async (id) => (await read(owner, id)).status));
    expect(statuses).toEqual([...Array.from({ length: PER_MINUTE }, () => "paused"), ...Array.from({ length: PER_MINUTE }, () => "pending")]);

    // The tRPC face refuses it with the same code.
    refill();
    const trpc = await fetch(`${server.url}/trpc/observations.bulk`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ ids, action: "pause" }),
    });
    expect(trpc.status).toBe(413);
    expect(trpc.headers.get("retry-after")).toBeNull();
    expect(((await trpc.json()) as { error: { data: { code: string } } }).error.data.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await read(owner, ids.at(-1)!)).status).toBe("pending");
  });
});

describe("a sign-in, password change or reset several limits refuse at once", () => {
  /*
   * Addresses come from X-Forwarded-For, so a test can fill one address's minute without touching
   * another's. Limits: 2 failures per email (15 minutes), 2 attempts per account and 4 per address (a minute).
   */
  const limited = serverWithLimits({
    TRUST_PROXY: "true",
    LOGIN_FAILURES_PER_EMAIL: "2",
    LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: "2",
    LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "4",
    PASSWORD_RESETS_PER_EMAIL_PER_HOUR: "2",
    PASSWORD_RESETS_PER_IP_PER_HOUR: "4",
  });
  let server: TestServer;
  let clock: TestClock;
  beforeAll(() => {
    ({ server, clock } = limited);
  });

  const loginFrom = (address: string, account: { email: string; password: string }) =>
    server.request("/api/v1/auth/login", {
      method: "POST",
      headers: { "x-forwarded-for": address },
      json: { email: account.email, password: account.password },
    });
  const failuresOf = async (account: Account) => {
    const sql = server.server.runtime.deps.sql;
    const [row] = await sql<Array<{ count: number }>>`
      select count(*)::int as count from rate_limit_events where bucket = 'login-email' and key = ${account.email.toLowerCase()}`;
    return row!.count;
  };
  /** Fills `address`'s minute with 4 successful sign-ins of two new accounts. */
  async function fillAddress(address: string) {
    for (const account of [await createAccount(server), await createAccount(server)])
      for (let n = 0; n < 2; n += 1) expect((await loginFrom(address, account)).status).toBe(200);
  }
  /** A 429 RATE_LIMITED with no session; its Retry-After in seconds and its detail. */
  async function refusal(response: Response) {
    const problem = await expectProblem(response, 429, "RATE_LIMITED");
    expect(response.headers.get("set-cookie")).toBeNull();
    return { retryAfter: Number(response.headers.get("retry-after")), detail: problem.detail };
  }

  it("answers the account's and the address's minute together with the longer wait, and a client that waits it out signs in", async () => {
    const alice = await createAccount(server);
    // Alice's own minute fills first, from another address.
    for (let n = 0; n < 2; n += 1) expect((await loginFrom("192.0.2.10", alice)).status).toBe(200);
    clock.set(clock.now() + 30_000);
    await fillAddress("198.51.100.20");
    clock.set(clock.now() + 10_000);

    // Alice's minute frees in 20 s, the address's in 50 s: the answer is the address's.
    const both = await refusal(await loginFrom("198.51.100.20", { email: alice.email, password: "a wrong guess" }));
    expect(both).toEqual({ retryAfter: 50, detail: "Too many sign-in attempts from this address: at most 4 a minute; try again in 50 seconds" });
    // Refused before the password was looked at: the wrong guess is no failure.
    expect(await failuresOf(alice)).toBe(0);

    // Either limit alone answers with its own wait.
    expect(await refusal(await loginFrom("192.0.2.10", alice))).toEqual({
      retryAfter: 20,
      detail: "Too many sign-in attempts for this account: at most 2 a minute; try again in 20 seconds",
    });
    clock.set(clock.now() + 20_000);
    expect((await refusal(await loginFrom("198.51.100.20", alice))).retryAfter).toBe(30);

    clock.set(clock.now() + 30_000);
    expect((await loginFrom("198.51.100.20", alice)).status).toBe(200);
  });

  it("answers the failures per email and the address's minute together with the longer wait", async () => {
    const carol = await createAccount(server);
    for (let n = 0; n < 2; n += 1) await expectProblem(await loginFrom("192.0.2.30", { email: carol.email, password: "wrong" }), 401, "INVALID_CREDENTIALS");
    expect(await failuresOf(carol)).toBe(2);

    // 14 minutes 45 seconds on, the failures free in 15 s; the address's minute, filled now, in 60 s.
    clock.set(clock.now() + 15 * MINUTE - 15_000);
    await fillAddress("198.51.100.40");
    const both = await refusal(await loginFrom("198.51.100.40", carol));
    expect(both).toEqual({ retryAfter: 60, detail: "Too many sign-in attempts from this address: at most 4 a minute; try again in 60 seconds" });
    expect(await refusal(await loginFrom("192.0.2.31", { email: carol.email, password: "wrong again" }))).toEqual({
      retryAfter: 15,
      detail: "Too many attempts; try again later",
    });
    expect(await failuresOf(carol)).toBe(2);

    clock.set(clock.now() + 60_000);
    expect((await loginFrom("198.51.100.40", carol)).status).toBe(200);
  });

  it("answers a password change that its failures and the address's minute refuse together with the longer wait", async () => {
    const changeFrom = (address: string, account: Account, currentPassword: string) =>
      server.request("/api/v1/user/password", {
        method: "PUT",
        token: account.token,
        headers: { "x-forwarded-for": address },
        json: { currentPassword, newPassword: "a brand new password" },
      });
    const dave = await createAccount(server);
    for (let n = 0; n < 2; n += 1) await expectProblem(await changeFrom("192.0.2.50", dave, "not the password"), 403, "INVALID_CREDENTIALS");

    // 14 minutes 45 seconds on, Dave's failures free in 15 s; the address's minute of password changes, filled now, in 60 s.
    clock.set(clock.now() + 15 * MINUTE - 15_000);
    for (const other of [await createAccount(server), await createAccount(server)])
      for (let n = 0; n < 2; n += 1) await expectProblem(await changeFrom("198.51.100.60", other, "not theirs either"), 403, "INVALID_CREDENTIALS");
    expect(await refusal(await changeFrom("198.51.100.60", dave, dave.password))).toEqual({
      retryAfter: 60,
      detail: "Too many password changes from this address: at most 4 a minute; try again in 60 seconds",
    });
    expect((await refusal(await changeFrom("192.0.2.51", dave, dave.password))).retryAfter).toBe(15);

    clock.set(clock.now() + 60_000);
    expect((await changeFrom("198.51.100.60", dave, dave.password)).status).toBe(204);
  });

  it("answers a reset request that its address's and its client's hour refuse together with the longer wait", async () => {
    const resetFrom = (address: string, email: string) =>
      server.request("/api/v1/auth/password-reset", { method: "POST", headers: { "x-forwarded-for": address }, json: { email } });
    const erin = await createAccount(server);
    for (let n = 0; n < 2; n += 1) expect((await resetFrom("192.0.2.70", erin.email)).status).toBe(202);
    // Half an hour on, another client's hour fills with requests for other addresses (accounts or not, they count).
    clock.set(clock.now() + 30 * MINUTE);
    for (let n = 0; n < 4; n += 1) expect((await resetFrom("198.51.100.80", `nobody-${n}@example.com`)).status).toBe(202);
    clock.set(clock.now() + 10 * MINUTE);

    // Erin's address has room again in 20 minutes, the client in 50: the answer is 50.
    expect((await refusal(await resetFrom("198.51.100.80", erin.email))).retryAfter).toBe(50 * 60);
    expect((await refusal(await resetFrom("192.0.2.71", erin.email))).retryAfter).toBe(20 * 60);
    clock.set(clock.now() + 50 * MINUTE);
    expect((await resetFrom("198.51.100.80", erin.email)).status).toBe(202);
  });
});
