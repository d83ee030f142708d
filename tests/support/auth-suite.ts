import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "./test-server";

/** Test signups and failed logins all come from 127.0.0.1: give each file room for them. */
export const roomyLimits = { SIGNUPS_PER_IP_PER_HOUR: "1000", LOGIN_FAILURES_PER_IP: "1000" } as const;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: Array<{ path: string; message: string }>;
}

/** Asserts an RFC 9457 problem+json answer with the given status and stable code, and returns it. */
export async function expectProblem(response: Response, status: number, code: string): Promise<Problem> {
  const text = await response.text();
  expect({ status: response.status, body: text }).toMatchObject({ status });
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Problem;
  expect(body).toMatchObject({ status, code });
  expect(typeof body.type).toBe("string");
  expect(body.type.length).toBeGreaterThan(0);
  expect(typeof body.title).toBe("string");
  expect(body.title.length).toBeGreaterThan(0);
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|node_modules/);
  return body;
}

/**
 * Two requests raced for the last place under a cap: one was created (201, or `created` for one
 * that answers otherwise, as an accepted invitation's 200), the other refused 409 CONFLICT with `refusal`.
 */
export async function expectOneCreatedOneRefused(answers: Response[], refusal: string, created = 201) {
  expect(answers.map((answer) => answer.status).sort()).toEqual([created, 409]);
  expect(
    (
      await expectProblem(
        answers.find((answer) => answer.status === 409)!,
        409,
        "CONFLICT",
      )
    ).detail,
  ).toBe(refusal);
}

/** Tiny images: the smallest valid files of each kind (1×1 pixel). */
export const images = {
  png: Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"),
  gif: Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
  // SOI, a JFIF APP0 segment and EOI: the header every JPEG starts with.
  jpeg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]),
};

/** `bytes` bytes that start with the tiny PNG (then zeros): an image to the server, of any size. */
export function pngOfSize(bytes: number) {
  const image = Buffer.alloc(bytes, 0);
  images.png.copy(image);
  return image;
}

/** The body of a response, as bytes. */
export const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

/** PUT /api/v1/user/avatar with `body` as `contentType`; `init` adds to the request (a streamed body's duplex). */
export const uploadAvatar = (server: TestServer, token: string, body: BodyInit, contentType = "image/png", init: RequestInit = {}) =>
  server.request("/api/v1/user/avatar", { ...init, method: "PUT", token, body, headers: { "content-type": contentType } });

/** GET /api/v1/users/{id}/avatar as the holder of `token`. */
export const avatarOf = (server: TestServer, userId: string, token: string) => server.request(`/api/v1/users/${userId}/avatar`, { token });

export interface Account {
  id: string;
  email: string;
  password: string;
  /** A session token for setting things up; tests that end sessions make their own. */
  token: string;
}

export async function createAccount(server: TestServer, overrides: { email?: string; password?: string; name?: string } = {}): Promise<Account> {
  const { user, token, password } = await signupUser(server, overrides);
  return { id: user.id, email: user.email, password, token };
}

/** Signs in again, returning a new session token and the cookie header value that login set. */
export async function loginSession(server: TestServer, account: { email: string; password: string }) {
  const response = await server.request("/api/v1/auth/login", { method: "POST", json: { email: account.email, password: account.password } });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  const { token } = (await response.json()) as { token: string };
  const setCookie = response.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0] ?? "";
  expect(cookie).toBe(`session=${token}`);
  return { token, cookie };
}

export async function createApiKey(server: TestServer, token: string, name = "suite key") {
  const response = await server.request("/api/v1/user/api-keys", { method: "POST", token, json: { name } });
  if (response.status !== 201) throw new Error(`api key creation failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; name: string; key: string; createdAt: string };
}

export async function logout(server: TestServer, token: string) {
  const response = await server.request("/api/v1/auth/logout", { method: "POST", token });
  expect(response.status).toBe(204);
}

export interface PreparedRequest {
  path: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

export interface AuthenticatedRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** The path as written in the contract, for test names. */
  path: string;
  /**
   * Builds a request that succeeds for `account` (called anew for every attempt, so that a
   * DELETE can first create what it removes). `token` is a valid session of the account.
   */
  prepare(server: TestServer, account: Account, token: string): Promise<PreparedRequest> | PreparedRequest;
  /** The status of that request when the credentials are accepted. */
  success: number;
}

type Credentials = { bearer?: string; cookie?: string; origin?: string; referer?: string };

function send(server: TestServer, method: string, prepared: PreparedRequest, credentials: Credentials) {
  const headers: Record<string, string> = { ...prepared.headers };
  if (credentials.bearer !== undefined) headers.authorization = `Bearer ${credentials.bearer}`;
  if (credentials.cookie !== undefined) headers.cookie = credentials.cookie;
  if (credentials.origin !== undefined) headers.origin = credentials.origin;
  if (credentials.referer !== undefined) headers.referer = credentials.referer;
  return server.request(prepared.path, { method, headers, json: prepared.json, body: prepared.body });
}

/**
 * The security suite every authenticated route runs: missing, garbage, revoked and logged-out
 * credentials are 401; a cookie may change state only from this site; bearer tokens are exempt.
 */
export function describeAuthSuite(getServer: () => TestServer, route: AuthenticatedRoute) {
  const stateChanging = route.method !== "GET";

  describe(`${route.method} ${route.path}: authentication`, () => {
    let server: TestServer;
    let account: Account;

    beforeAll(async () => {
      server = getServer();
      account = await createAccount(server);
    });

    const prepare = async () => {
      const session = await loginSession(server, account);
      return { session, prepared: await route.prepare(server, account, session.token) };
    };

    const sessionStillWorks = async (token: string) => {
      const response = await server.request("/api/v1/auth/me", { token });
      expect(response.status).toBe(200);
    };

    it(`answers ${route.success} with a valid session bearer token`, async () => {
      const { session, prepared } = await prepare();
      const response = await send(server, route.method, prepared, { bearer: session.token });
      expect(response.status).toBe(route.success);
    });

    it(`answers ${route.success} with a valid API key`, async () => {
      const { session, prepared } = await prepare();
      const { key } = await createApiKey(server, session.token);
      const response = await send(server, route.method, prepared, { bearer: key });
      expect(response.status).toBe(route.success);
    });

    it("refuses a request without credentials with 401 UNAUTHENTICATED", async () => {
      const { prepared } = await prepare();
      await expectProblem(await send(server, route.method, prepared, {}), 401, "UNAUTHENTICATED");
    });

    it.each([
      ["a random word", "garbage"],
      ["a made-up session token", `mst_${randomBytes(32).toString("base64url")}`],
      ["a made-up API key", `mak_${randomBytes(32).toString("base64url")}`],
      ["an overlong token", `mst_${"a".repeat(5000)}`],
    ])("refuses a garbage bearer token (%s) with 401", async (_label, token) => {
      const { prepared } = await prepare();
      await expectProblem(await send(server, route.method, prepared, { bearer: token }), 401, "UNAUTHENTICATED");
    });

    it("refuses a garbage session cookie with 401", async () => {
      const { prepared } = await prepare();
      await expectProblem(await send(server, route.method, prepared, { cookie: "session=not-a-session", origin: server.url }), 401, "UNAUTHENTICATED");
    });

    it("refuses a revoked API key with 401", async () => {
      const { session, prepared } = await prepare();
      const { id, key } = await createApiKey(server, session.token);
      const revoke = await server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: session.token });
      expect(revoke.status).toBe(204);
      await expectProblem(await send(server, route.method, prepared, { bearer: key }), 401, "UNAUTHENTICATED");
    });

    it("refuses a logged-out session token with 401, as bearer and as cookie", async () => {
      const { session, prepared } = await prepare();
      await logout(server, session.token);
      await expectProblem(await send(server, route.method, prepared, { bearer: session.token }), 401, "UNAUTHENTICATED");
      await expectProblem(await send(server, route.method, prepared, { cookie: session.cookie, origin: server.url }), 401, "UNAUTHENTICATED");
    });

    if (stateChanging) {
      it("refuses a cookie-authenticated request from a foreign Origin with 403 CROSS_ORIGIN_REQUEST", async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { cookie: session.cookie, origin: "https://evil.example" });
        await expectProblem(response, 403, "CROSS_ORIGIN_REQUEST");
        await sessionStillWorks(session.token);
      });

      it("refuses a cookie-authenticated request without Origin or Referer with 403", async () => {
        const { session, prepared } = await prepare();
        await expectProblem(await send(server, route.method, prepared, { cookie: session.cookie }), 403, "CROSS_ORIGIN_REQUEST");
        await sessionStillWorks(session.token);
      });

      it("refuses a cookie-authenticated request with only a foreign Referer with 403", async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { cookie: session.cookie, referer: "https://evil.example/page" });
        await expectProblem(response, 403, "CROSS_ORIGIN_REQUEST");
      });

      it("refuses a cookie-authenticated request from another port of the same host with 403", async () => {
        const { session, prepared } = await prepare();
        const other = new URL(server.url);
        other.port = String(Number(other.port) === 65535 ? 1 : Number(other.port) + 1);
        await expectProblem(await send(server, route.method, prepared, { cookie: session.cookie, origin: other.origin }), 403, "CROSS_ORIGIN_REQUEST");
      });

      it(`accepts a cookie-authenticated request from this site's Origin (${route.success})`, async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { cookie: session.cookie, origin: server.url });
        expect(response.status).toBe(route.success);
      });

      it(`accepts a cookie-authenticated request with a same-origin Referer and no Origin (${route.success})`, async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { cookie: session.cookie, referer: `${server.url}/app/settings` });
        expect(response.status).toBe(route.success);
      });

      it("exempts bearer tokens from the origin check", async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { bearer: session.token, origin: "https://evil.example" });
        expect(response.status).toBe(route.success);
      });
    } else {
      it(`accepts the session cookie alone for a read (${route.success})`, async () => {
        const { session, prepared } = await prepare();
        const response = await send(server, route.method, prepared, { cookie: session.cookie });
        expect(response.status).toBe(route.success);
      });
    }
  });
}
