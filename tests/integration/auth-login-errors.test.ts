import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

const login = (server: TestServer, json: unknown) => server.request("/api/v1/auth/login", { method: "POST", json });

describe("POST /api/v1/auth/login errors", () => {
  let server: TestServer;
  let account: Account;
  beforeAll(async () => {
    server = await startTestServer(roomyLimits);
    account = await createAccount(server, { password: "the right one" });
  });
  afterAll(() => server?.stop());

  it("answers 401 INVALID_CREDENTIALS with the same body for a wrong password and an unknown email", async () => {
    const wrongPassword = await login(server, { email: account.email, password: "the wrong one" });
    const unknownEmail = await login(server, { email: "nobody@example.com", password: "the right one" });
    const first = await expectProblem(wrongPassword, 401, "INVALID_CREDENTIALS");
    const second = await expectProblem(unknownEmail, 401, "INVALID_CREDENTIALS");
    expect(second).toEqual(first);
    expect(wrongPassword.headers.get("set-cookie")).toBeNull();
    expect(unknownEmail.headers.get("set-cookie")).toBeNull();
  });

  it("treats passwords as case-sensitive", async () => {
    await expectProblem(await login(server, { email: account.email, password: "THE RIGHT ONE" }), 401, "INVALID_CREDENTIALS");
  });

  it.each([
    ["a missing email", { password: "x" }],
    ["a missing password", { email: "someone@example.com" }],
    ["an empty email", { email: "", password: "x" }],
    ["an empty password", { email: "someone@example.com", password: "" }],
    ["a numeric password", { email: "someone@example.com", password: 12345678 }],
    ["an email array", { email: ["someone@example.com"], password: "x" }],
    ["an unknown field", { email: "someone@example.com", password: "x", remember: true }],
  ])("answers 400 VALIDATION_FAILED for %s", async (_label, body) => {
    await expectProblem(await login(server, body), 400, "VALIDATION_FAILED");
  });
});

describe("failed logins per email (LOGIN_FAILURES_PER_EMAIL=3)", () => {
  let server: TestServer;
  let account: Account;
  let other: Account;
  beforeAll(async () => {
    server = await startTestServer({ LOGIN_FAILURES_PER_EMAIL: "3", LOGIN_FAILURES_PER_IP: "1000" });
    account = await createAccount(server, { email: "target@example.com", password: "the right one" });
    other = await createAccount(server, { password: "the right one" });
  });
  afterAll(() => server?.stop());

  it("answers 429 RATE_LIMITED with a numeric Retry-After after 3 failures, even for the right password", async () => {
    // Case variants of the address count against the same email.
    for (const email of ["target@example.com", "TARGET@example.com", "Target@Example.com"]) {
      await expectProblem(await login(server, { email, password: "wrong guess" }), 401, "INVALID_CREDENTIALS");
    }
    for (const password of ["wrong guess", account.password]) {
      const response = await login(server, { email: account.email, password });
      await expectProblem(response, 429, "RATE_LIMITED");
      const retryAfter = response.headers.get("retry-after");
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);
      expect(response.headers.get("set-cookie")).toBeNull();
    }
  });

  it("limits only that email: other accounts still sign in", async () => {
    expect((await login(server, { email: other.email, password: other.password })).status).toBe(200);
  });

  it("does not count successful logins as failures", async () => {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      expect((await login(server, { email: other.email, password: other.password })).status).toBe(200);
    }
  });

  it("counts failures for unknown emails too", async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expectProblem(await login(server, { email: "ghost@example.com", password: "anything" }), 401, "INVALID_CREDENTIALS");
    }
    await expectProblem(await login(server, { email: "ghost@example.com", password: "anything" }), 429, "RATE_LIMITED");
  });
});

describe("failed logins per address (LOGIN_FAILURES_PER_IP=3)", () => {
  let server: TestServer;
  let account: Account;
  beforeAll(async () => {
    server = await startTestServer({ LOGIN_FAILURES_PER_EMAIL: "1000", LOGIN_FAILURES_PER_IP: "3" });
    account = await createAccount(server, { password: "the right one" });
  });
  afterAll(() => server?.stop());

  it("answers 429 with Retry-After after 3 failures across different emails, for any email", async () => {
    for (let index = 0; index < 3; index += 1) {
      await expectProblem(await login(server, { email: `spray${index}@example.com`, password: "guess" }), 401, "INVALID_CREDENTIALS");
    }
    for (const body of [
      { email: "spray9@example.com", password: "guess" },
      { email: account.email, password: account.password },
    ]) {
      const response = await login(server, body);
      await expectProblem(response, 429, "RATE_LIMITED");
      expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    }
  });

  it("leaves existing sessions working", async () => {
    expect((await server.request("/api/v1/auth/me", { token: account.token })).status).toBe(200);
  });
});
