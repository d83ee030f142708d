import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, roomyLimits } from "../support/auth-suite";
import { invitationPathFor } from "../support/invitation-links";
import { jsonApi } from "../support/json-api";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
});
afterAll(() => server?.stop());

const signup = (target: TestServer, json: unknown) => target.request("/api/v1/auth/signup", { method: "POST", json });
const valid = { email: "taken@example.com", password: "long enough", name: "Taken" };

describe("POST /api/v1/auth/signup errors", () => {
  it("answers 409 EMAIL_TAKEN for an email already registered", async () => {
    expect((await signup(server, valid)).status).toBe(201);
    const problem = await expectProblem(await signup(server, { ...valid, name: "Someone else" }), 409, "EMAIL_TAKEN");
    expect(problem.errors).toEqual([{ path: "email", message: "An account with this email already exists: sign in, or reset its password." }]);
  });

  it("compares emails case-insensitively (A@x.com vs a@x.com)", async () => {
    expect((await signup(server, { ...valid, email: "A@x.com" })).status).toBe(201);
    await expectProblem(await signup(server, { ...valid, email: "a@x.com" }), 409, "EMAIL_TAKEN");
    await expectProblem(await signup(server, { ...valid, email: " a@X.COM " }), 409, "EMAIL_TAKEN");
  });

  it("does not create a second session or user when the email is taken", async () => {
    const response = await signup(server, { ...valid, email: "TAKEN@example.com" });
    await expectProblem(response, 409, "EMAIL_TAKEN");
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it.each([
    ["a 7-character password", { ...valid, email: "short@example.com", password: "1234567" }, "password"],
    ["an empty password", { ...valid, email: "short@example.com", password: "" }, "password"],
    ["a password over 256 characters", { ...valid, email: "long@example.com", password: "p".repeat(257) }, "password"],
    ["an email without @", { ...valid, email: "not-an-email" }, "email"],
    ["an email without domain", { ...valid, email: "someone@" }, "email"],
    ["an email of spaces", { ...valid, email: "   " }, "email"],
    ["a missing email", { password: valid.password, name: valid.name }, "email"],
    ["a missing password", { email: "nopw@example.com", name: valid.name }, "password"],
    ["a missing name", { email: "noname@example.com", password: valid.password }, "name"],
    ["an empty name", { ...valid, email: "empty@example.com", name: "" }, "name"],
    ["a blank name", { ...valid, email: "blank@example.com", name: "   " }, "name"],
    ["a name over 100 characters", { ...valid, email: "longname@example.com", name: "n".repeat(101) }, "name"],
    ["a name with a control character", { ...valid, email: "ctl@example.com", name: "bell\u0007" }, "name"],
    ["a numeric email", { ...valid, email: 42 }, "email"],
    ["an unknown field", { ...valid, email: "extra@example.com", isAdmin: true }, ""],
    ["a roles field", { ...valid, email: "roles@example.com", roles: ["serverAdmin"] }, ""],
  ])("answers 400 VALIDATION_FAILED for %s", async (_label, body, path) => {
    const response = await signup(server, body);
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(problem.errors?.length).toBeGreaterThan(0);
    if (path) expect(problem.errors?.map((error) => error.path)).toContain(path);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("answers 400 for an empty body", async () => {
    await expectProblem(await server.request("/api/v1/auth/signup", { method: "POST" }), 400, "VALIDATION_FAILED");
  });

  it("names every invalid field in errors", async () => {
    const problem = await expectProblem(await signup(server, { email: "x", password: "1", name: "" }), 400, "VALIDATION_FAILED");
    expect(problem.errors?.map((error) => error.path).sort()).toEqual(["email", "name", "password"]);
  });

  it("does not let a refused signup create the account", async () => {
    await expectProblem(await signup(server, { ...valid, email: "refused@example.com", password: "short" }), 400, "VALIDATION_FAILED");
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email: "refused@example.com", password: "short" } });
    await expectProblem(login, 401, "INVALID_CREDENTIALS");
  });
});

describe("signup disabled (SIGNUP_ENABLED=false)", () => {
  let closed: TestServer;
  beforeAll(async () => {
    closed = await startTestServer({ SIGNUP_ENABLED: "false", ADMIN_EMAIL: "root@example.com", ADMIN_PASSWORD: "root password" });
  });
  afterAll(() => closed?.stop());

  it("answers 403 SIGNUP_DISABLED and creates nobody", async () => {
    const response = await signup(closed, { email: "new@example.com", password: "long enough", name: "New" });
    await expectProblem(response, 403, "SIGNUP_DISABLED");
    expect(response.headers.get("set-cookie")).toBeNull();
    const login = await closed.request("/api/v1/auth/login", { method: "POST", json: { email: "new@example.com", password: "long enough" } });
    await expectProblem(login, 401, "INVALID_CREDENTIALS");
  });

  it("still lets existing users log in", async () => {
    const login = await closed.request("/api/v1/auth/login", { method: "POST", json: { email: "root@example.com", password: "root password" } });
    expect(login.status).toBe(200);
  });

  describe("an invited address", () => {
    const { must, call, createOrganization } = jsonApi(() => closed);
    const rootAccount = async () => {
      const login = await must("/api/v1/auth/login", { method: "POST", json: { email: "root@example.com", password: "root password" } }, 200);
      return { id: login.user.id as string, email: "root@example.com", password: "root password", token: login.token as string };
    };
    /** An organization of root's and the token of an invitation to it for `email`. */
    async function invitationFor(email: string) {
      const root = await rootAccount();
      const organization = await createOrganization(root);
      const sent = await must(`/organizations/${organization.id}/invitations`, { method: "POST", token: root.token, json: { email } }, 201);
      const path = await invitationPathFor(closed, email);
      return { root, organization, invitationId: sent.id as string, token: decodeURIComponent(path.slice("invitations/".length)) };
    }
    const loginFails = async (email: string) =>
      expectProblem(await closed.request("/api/v1/auth/login", { method: "POST", json: { email, password: "long enough" } }), 401, "INVALID_CREDENTIALS");

    it("signs up with the link's token, then joins on acceptance; the used link signs nobody else up", async () => {
      const { organization, token } = await invitationFor("invited.newcomer@example.com");

      const created = await signup(closed, { email: "Invited.Newcomer@example.com", password: "long enough", name: "Invited", invitationToken: token });
      expect(created.status).toBe(201);
      const { token: session } = (await created.json()) as { token: string };
      expect(await must("/api/v1/invitations/accept", { method: "POST", token: session, json: { token } }, 200)).toEqual({
        kind: "organization",
        id: organization.id,
      });
      expect((await call(`/organizations/${organization.id}`, { token: session })).status).toBe(200);

      await expectProblem(
        await signup(closed, { email: "invited.newcomer+2@example.com", password: "long enough", name: "Second", invitationToken: token }),
        410,
        "INVITATION_EXPIRED",
      );
    });

    it("refuses another address (403), an unknown token (404), a revoked link (410) and an empty token (400), creating nobody", async () => {
      const { root, organization, invitationId, token } = await invitationFor("invited.only@example.com");
      const attempt = (email: string, invitationToken: string) => signup(closed, { email, password: "long enough", name: "Someone", invitationToken });

      const mismatch = await expectProblem(await attempt("someone.else@example.com", token), 403, "INVITATION_EMAIL_MISMATCH");
      expect(mismatch.detail).toMatch(/invited\.only@example\.com/);
      await expectProblem(await attempt("invited.only@example.com", "not-a-real-token"), 404, "NOT_FOUND");
      const empty = await expectProblem(await attempt("invited.only@example.com", "  "), 400, "VALIDATION_FAILED");
      expect(empty.errors?.map((error) => error.path)).toEqual(["invitationToken"]);

      expect((await call(`/organizations/${organization.id}/invitations/${invitationId}`, { method: "DELETE", token: root.token })).status).toBe(204);
      await expectProblem(await attempt("invited.only@example.com", token), 410, "INVITATION_EXPIRED");
      await loginFails("someone.else@example.com");
      await loginFails("invited.only@example.com");
    });
  });
});

describe("signup rate limit (SIGNUPS_PER_IP_PER_HOUR=3)", () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ SIGNUPS_PER_IP_PER_HOUR: "3" });
  });
  afterAll(() => limited?.stop());

  it("answers 429 RATE_LIMITED with a numeric Retry-After once an address made 3 signups", async () => {
    for (let index = 0; index < 3; index += 1) {
      const response = await signup(limited, { email: `burst${index}@example.com`, password: "long enough", name: `Burst ${index}` });
      expect(response.status).toBe(201);
    }
    const response = await signup(limited, { email: "burst3@example.com", password: "long enough", name: "Burst 3" });
    await expectProblem(response, 429, "RATE_LIMITED");
    const retryAfter = response.headers.get("retry-after");
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3600);

    const login = await limited.request("/api/v1/auth/login", { method: "POST", json: { email: "burst3@example.com", password: "long enough" } });
    await expectProblem(login, 401, "INVALID_CREDENTIALS");
  });

  it("keeps refusing further signups from that address", async () => {
    const response = await signup(limited, { email: "burst4@example.com", password: "long enough", name: "Burst 4" });
    await expectProblem(response, 429, "RATE_LIMITED");
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
