import { randomBytes } from "node:crypto";
import { passwordResetsCollection } from "@meridian/db";
import { hashSecret } from "@meridian/domain/auth";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, type Account } from "../support/auth-suite";
import { serverWithLimits } from "../support/server-with-limits";
import type { TestClock } from "../support/test-clock";
import type { TestServer } from "../support/test-server";

/*
 * Every password check costs an argon2 hash, so sign-ins, password changes and reset confirmations
 * are counted whether they succeed or not (LOGIN_ATTEMPTS_PER_IP_PER_MINUTE,
 * LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE), refused before the password is looked at, and allowed
 * again once the minute has passed; the failure limits keep their own count beside them.
 */

const MINUTE = 60_000;
const login = (server: TestServer, { email, password }: { email: string; password: string }) =>
  server.request("/api/v1/auth/login", { method: "POST", json: { email, password } });
const changePassword = (server: TestServer, token: string, currentPassword: string, newPassword: string) =>
  server.request("/api/v1/user/password", { method: "PUT", token, json: { currentPassword, newPassword } });
const confirmReset = (server: TestServer, token: string, newPassword: string) =>
  server.request("/api/v1/auth/password-reset/confirm", { method: "POST", json: { token, newPassword } });
const eventsIn = async (server: TestServer, bucket: string, key?: string) => {
  const sql = server.server.runtime.deps.sql;
  const rows = await sql<Array<{ count: number }>>`
    select count(*)::int as count from rate_limit_events where bucket = ${bucket} and (${key ?? null}::text is null or key = ${key ?? null})`;
  return rows[0]!.count;
};

/** A 429 RATE_LIMITED answer with a Retry-After of at most a minute and no session; its detail. */
async function expectRefused(response: Response) {
  const problem = await expectProblem(response, 429, "RATE_LIMITED");
  const retryAfter = response.headers.get("retry-after");
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(response.headers.get("set-cookie")).toBeNull();
  return problem.detail;
}

describe("attempts per account (LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE=3)", () => {
  const limited = serverWithLimits({ LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: "3", LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "1000" });
  let server: TestServer;
  let clock: TestClock;
  beforeAll(() => {
    ({ server, clock } = limited);
  });

  it("refuses the 4th sign-in of a minute even with the right password, counts refusals nowhere, and signs in again after the minute", async () => {
    const account = await createAccount(server, { password: "the right one" });
    const other = await createAccount(server, { password: "the right one" });
    // Letter case names the same account.
    for (const email of [account.email, account.email.toUpperCase(), account.email]) {
      expect((await login(server, { email, password: account.password })).status).toBe(200);
    }
    for (const password of [account.password, "a wrong one", account.password]) {
      expect(await expectRefused(await login(server, { email: account.email, password }))).toMatch(
        /^Too many sign-in attempts for this account: at most 3 a minute; try again in \d+ seconds?$/,
      );
    }
    // Refused before the password was looked at: the wrong one did not count as a failure, and the refusals
    // recorded nothing, so the account's events stay at the limit however often it is tried.
    expect(await eventsIn(server, "login-email", account.email.toLowerCase())).toBe(0);
    expect(await eventsIn(server, "sign-in-account", account.email.toLowerCase())).toBe(3);
    // Only that account is held back.
    expect((await login(server, { email: other.email, password: other.password })).status).toBe(200);

    clock.set(clock.now() + MINUTE);
    expect((await login(server, { email: account.email, password: account.password })).status).toBe(200);
  });

  it("counts failed sign-ins and unknown emails as attempts too", async () => {
    const account = await createAccount(server, { password: "the right one" });
    for (const password of ["wrong once", "wrong twice"]) {
      await expectProblem(await login(server, { email: account.email, password }), 401, "INVALID_CREDENTIALS");
    }
    expect((await login(server, { email: account.email, password: account.password })).status).toBe(200);
    await expectRefused(await login(server, { email: account.email, password: account.password }));

    const ghost = `ghost-${randomBytes(3).toString("hex")}@example.com`;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expectProblem(await login(server, { email: ghost, password: "anything" }), 401, "INVALID_CREDENTIALS");
    }
    await expectRefused(await login(server, { email: ghost, password: "anything" }));
  });

  it("lets exactly 3 of 8 sign-ins sent at once through", async () => {
    const account = await createAccount(server, { password: "the right one" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => login(server, { email: account.email, password: account.password })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    await Promise.all(answers.map((answer) => answer.arrayBuffer()));
    expect(await eventsIn(server, "sign-in-account", account.email.toLowerCase())).toBe(3);
  });

  it("counts password changes, right or wrong, and takes one again after the minute", async () => {
    const account = await createAccount(server, { password: "password zero" });
    expect((await changePassword(server, account.token, "password zero", "password one")).status).toBe(204);
    await expectProblem(await changePassword(server, account.token, "not the password", "password two"), 403, "INVALID_CREDENTIALS");
    expect((await changePassword(server, account.token, "password one", "password two")).status).toBe(204);
    expect(await expectRefused(await changePassword(server, account.token, "password two", "password three"))).toMatch(
      /^Too many password changes for this account: at most 3 a minute; try again in \d+ seconds?$/,
    );
    // Nothing changed: the password is still the second one.
    expect((await login(server, { email: account.email, password: "password two" })).status).toBe(200);

    clock.set(clock.now() + MINUTE);
    expect((await changePassword(server, account.token, "password two", "password three")).status).toBe(204);
  });

  it("counts working reset links, not invalid ones, and takes one again after the minute", async () => {
    const account = await createAccount(server, { password: "password zero" });
    const db = server.server.runtime.deps.db;
    /** A reset link of the account, as the emailed one would be. */
    const resetLink = async () => {
      const token = `mpr_${randomBytes(16).toString("hex")}`;
      const expiresAt = new Date(clock.now() + 3_600_000).toISOString();
      await passwordResetsCollection.insert(db, { userId: account.id, tokenHash: hashSecret(token), expiresAt, usedAt: null });
      return token;
    };
    // Unknown links are refused before any hash, and count nothing.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expectProblem(await confirmReset(server, `mpr_unknown${attempt}`, "some new password"), 400, "INVALID_TOKEN");
    }
    expect(await eventsIn(server, "password-reset-ip")).toBe(0);
    for (const password of ["password one", "password two", "password three"]) {
      expect((await confirmReset(server, await resetLink(), password)).status).toBe(204);
    }
    const fourth = await resetLink();
    expect(await expectRefused(await confirmReset(server, fourth, "password four"))).toMatch(
      /^Too many password resets for this account: at most 3 a minute; try again in \d+ seconds?$/,
    );
    expect((await login(server, { email: account.email, password: "password three" })).status).toBe(200);

    clock.set(clock.now() + MINUTE);
    // The refused link was not used up.
    expect((await confirmReset(server, fourth, "password four")).status).toBe(204);
    expect((await login(server, { email: account.email, password: "password four" })).status).toBe(200);
  });
});

describe("attempts per client address (LOGIN_ATTEMPTS_PER_IP_PER_MINUTE=4)", () => {
  const limited = serverWithLimits({ LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: "1000", LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "4" });
  let server: TestServer;
  let clock: TestClock;
  let accounts: Account[];
  beforeAll(async () => {
    ({ server, clock } = limited);
    accounts = [await createAccount(server), await createAccount(server), await createAccount(server)];
  });

  it("refuses the 5th sign-in of a minute from one address, for any account, and signs in again after the minute", async () => {
    const [a, b, c] = accounts as [Account, Account, Account];
    for (const account of [a, b, c, a]) expect((await login(server, account)).status).toBe(200);
    for (const body of [c, { email: "nobody@example.com", password: "a guess" }]) {
      expect(await expectRefused(await login(server, body))).toMatch(
        /^Too many sign-in attempts from this address: at most 4 a minute; try again in \d+ seconds?$/,
      );
    }
    clock.set(clock.now() + MINUTE);
    expect((await login(server, c)).status).toBe(200);
  });

  it("refuses the 5th password change of a minute from one address, whoever makes it", async () => {
    const [a, b] = accounts as [Account, Account, Account];
    let [passwordA, passwordB] = [a.password, b.password];
    for (const [index, account] of [a, b, a, b].entries()) {
      const next = `new password ${index}`;
      const current = account === a ? passwordA : passwordB;
      expect((await changePassword(server, account.token, current, next)).status).toBe(204);
      if (account === a) passwordA = next;
      else passwordB = next;
    }
    expect(await expectRefused(await changePassword(server, a.token, passwordA, "one too many"))).toMatch(
      /^Too many password changes from this address: at most 4 a minute; try again in \d+ seconds?$/,
    );
    clock.set(clock.now() + MINUTE);
    expect((await changePassword(server, b.token, passwordB, "after the minute")).status).toBe(204);
  });
});

describe("signups sent at once (SIGNUPS_PER_IP_PER_HOUR=3)", () => {
  const limited = serverWithLimits({ SIGNUPS_PER_IP_PER_HOUR: "3" });
  let server: TestServer;
  beforeAll(() => {
    ({ server } = limited);
  });

  it("create exactly 3 accounts; the others are refused before their password is hashed", async () => {
    const tag = randomBytes(3).toString("hex");
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        server.request("/api/v1/auth/signup", {
          method: "POST",
          json: { email: `burst-${tag}-${index}@example.com`, password: "long enough", name: `Burst ${index}` },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect((await expectProblem(refused, 429, "RATE_LIMITED")).detail).toMatch(
      /^Too many signups from this address: at most 3 an hour; try again in \d+ minutes?$/,
    );
    const sql = server.server.runtime.deps.sql;
    const [row] = await sql<Array<{ count: number }>>`select count(*)::int as count from users where email_lower like ${`burst-${tag}-%`}`;
    expect(row!.count).toBe(3);
    expect(await eventsIn(server, "signup-ip")).toBe(3);
  });
});

describe("attempts per IPv6 network (TRUST_PROXY, LOGIN_ATTEMPTS_PER_IP_PER_MINUTE=2)", () => {
  const limited = serverWithLimits({ TRUST_PROXY: "true", LOGIN_ATTEMPTS_PER_ACCOUNT_PER_MINUTE: "1000", LOGIN_ATTEMPTS_PER_IP_PER_MINUTE: "2" });
  let server: TestServer;
  beforeAll(() => {
    ({ server } = limited);
  });

  const loginFrom = (address: string, account: Account) =>
    server.request("/api/v1/auth/login", {
      method: "POST",
      headers: { "x-forwarded-for": address },
      json: { email: account.email, password: account.password },
    });

  it("counts every address of one /64 as one client, since a host may take a new one for each attempt", async () => {
    const account = await createAccount(server);
    expect((await loginFrom("2001:db8:1:2::1", account)).status).toBe(200);
    expect((await loginFrom("2001:0db8:0001:0002:ffff:eeee:dddd:cccc", account)).status).toBe(200);
    expect(await expectRefused(await loginFrom("2001:db8:1:2:aaaa::3", account))).toMatch(/from this address: at most 2 a minute/);
    // The next /64 is another client.
    expect((await loginFrom("2001:db8:1:3::1", account)).status).toBe(200);
    expect(await eventsIn(server, "sign-in-ip", "2001:db8:1:2::/64")).toBe(2);
  });
});
