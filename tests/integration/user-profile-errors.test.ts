import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

describeAuthSuite(() => server, { method: "GET", path: "/api/v1/user/profile", prepare: () => ({ path: "/api/v1/user/profile" }), success: 200 });
describeAuthSuite(() => server, {
  method: "PUT",
  path: "/api/v1/user/profile",
  prepare: () => ({ path: "/api/v1/user/profile", json: { name: "Suite" } }),
  success: 200,
});

describe("PUT /api/v1/user/profile errors", () => {
  let account: Account;
  let before: unknown;
  beforeAll(async () => {
    account = await createAccount(server, { name: "Stable" });
    before = await (await server.request("/api/v1/user/profile", { token: account.token })).json();
  });

  it.each([
    ["an unknown top-level field", { nickname: "x" }, ":nickname"],
    ["an email change", { email: "new@example.com" }, ":email"],
    ["a roles field", { roles: ["serverAdmin"] }, ":roles"],
    ["an unknown preference", { notificationPreferences: { sms: true } }, "notificationPreferences:sms"],
    ["a numeric name", { name: 42 }, "name"],
    ["a null name", { name: null }, "name"],
    ["an array name", { name: ["a"] }, "name"],
    ["an empty name", { name: "" }, "name"],
    ["a blank name", { name: "  " }, "name"],
    ["a name over 100 characters", { name: "n".repeat(101) }, "name"],
    ["a name with NUL", { name: "a\u0000b" }, "name"],
    ["a name with a newline", { name: "a\nb" }, "name"],
    ["a name with a lone surrogate", { name: "a\ud800" }, "name"],
    ["a string preference", { notificationPreferences: { email: "yes" } }, "notificationPreferences.email"],
    ["a numeric preference", { notificationPreferences: { push: 1 } }, "notificationPreferences.push"],
    ["a null preference", { notificationPreferences: { push: null } }, "notificationPreferences.push"],
    ["null preferences", { notificationPreferences: null }, "notificationPreferences"],
    ["array preferences", { notificationPreferences: [true] }, "notificationPreferences"],
    ["boolean preferences", { notificationPreferences: true }, "notificationPreferences"],
  ])("answers 400 VALIDATION_FAILED for %s and changes nothing", async (_label, json, path) => {
    const response = await server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json });
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    // "parent:key" names an unknown field, reported at its own path ("parent.key", or "key" at the top).
    const [parent, key] = path.includes(":") ? path.split(":") : [path, undefined];
    const expectedPath = key ? [parent, key].filter(Boolean).join(".") : parent;
    const error = problem.errors?.find((entry) => entry.path === expectedPath);
    expect(error, JSON.stringify(problem.errors)).toBeDefined();
    if (key) expect(error!.message).toBe(`“${key}” is not a known field.`);
    expect(await (await server.request("/api/v1/user/profile", { token: account.token })).json()).toEqual(before);
  });

  it.each([
    ["null", null],
    ["an array", [{ name: "x" }]],
    ["a string", "name"],
    ["a number", 1],
  ])("answers 400 for %s as the body", async (_label, json) => {
    await expectProblem(await server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json }), 400, "VALIDATION_FAILED");
  });

  it("answers 400 for malformed JSON", async () => {
    const response = await server.request("/api/v1/user/profile", {
      method: "PUT",
      token: account.token,
      body: '{"name": "x"',
      headers: { "content-type": "application/json" },
    });
    await expectProblem(response, 400, "VALIDATION_FAILED");
  });

  it("answers 405 for PATCH and POST", async () => {
    for (const method of ["PATCH", "POST"]) {
      const response = await server.request("/api/v1/user/profile", { method, token: account.token, json: { name: "x" } });
      await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
      expect(response.headers.get("allow")).toBe("GET, HEAD, PUT");
    }
  });
});
