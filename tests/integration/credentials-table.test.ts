import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";
import { connectWebSocket } from "../support/ws-client";

/**
 * One table of credentials and origins, each case answered by every surface that reads them:
 * a state-changing REST route, a REST read, the `/ws` handshake and the `/ws/observatory`
 * handshake. `ok` means the request was served (a REST 200, an open socket) as the main user.
 */
const ok = "ok";
const unauthenticated = "401 UNAUTHENTICATED";
const crossOrigin = "403 CROSS_ORIGIN_REQUEST";
const forbidden = "403 FORBIDDEN";
type Outcome = typeof ok | typeof unauthenticated | typeof crossOrigin | typeof forbidden;

interface Outcomes {
  write: Outcome;
  read: Outcome;
  ws: Outcome;
  observatory: Outcome;
}

interface Fixture {
  server: TestServer;
  /** The origin the server was reached at (its address), and the host of that origin. */
  self: string;
  host: string;
  main: Account;
  other: Account;
  observatoryKey: string;
}

interface Case {
  name: string;
  headers(fixture: Fixture): Record<string, string>;
  expected: Outcomes;
}

const PUBLIC_URL = "https://meridian.example";
const foreign = "https://evil.example";
/** Served by every surface but the plugin's. */
const served: Outcomes = { write: ok, read: ok, ws: ok, observatory: unauthenticated };
/** A cookie that the evidence says another site sent: reads only. */
const crossSite: Outcomes = { write: crossOrigin, read: ok, ws: forbidden, observatory: unauthenticated };
const refused: Outcomes = { write: unauthenticated, read: unauthenticated, ws: unauthenticated, observatory: unauthenticated };
const pluginOnly: Outcomes = { write: forbidden, read: forbidden, ws: unauthenticated, observatory: ok };

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookie = (token: string) => ({ cookie: `session=${token}` });

const withoutPublicUrl: Case[] = [
  { name: "no credentials", headers: () => ({}), expected: refused },
  { name: "a bearer session token", headers: (f) => bearer(f.main.token), expected: served },
  { name: "a bearer token with the scheme in lower case", headers: (f) => ({ authorization: `bearer ${f.main.token}` }), expected: served },
  { name: "a bearer token with spaces around it", headers: (f) => ({ authorization: `BEARER   ${f.main.token}  ` }), expected: served },
  { name: "a bearer header with two tokens", headers: (f) => ({ authorization: `Bearer ${f.main.token} ${f.main.token}` }), expected: refused },
  { name: "a bearer token from a foreign Origin (bearer tokens are exempt)", headers: (f) => ({ ...bearer(f.main.token), origin: foreign }), expected: served },
  { name: "the cookie from this site's Origin", headers: (f) => ({ ...cookie(f.main.token), origin: f.self }), expected: served },
  { name: "the cookie from a foreign Origin", headers: (f) => ({ ...cookie(f.main.token), origin: foreign }), expected: crossSite },
  { name: "the cookie from Origin null", headers: (f) => ({ ...cookie(f.main.token), origin: "null" }), expected: crossSite },
  {
    name: "the cookie from another port of this host",
    headers: (f) => {
      const other = new URL(f.self);
      other.port = String(Number(other.port) === 65535 ? 1 : Number(other.port) + 1);
      return { ...cookie(f.main.token), origin: other.origin };
    },
    expected: crossSite,
  },
  // The connection is plain HTTP, so its origin is http://; behind a TLS proxy, PUBLIC_URL names the origin.
  { name: "the cookie from https:// on this host", headers: (f) => ({ ...cookie(f.main.token), origin: `https://${f.host}` }), expected: crossSite },
  // No browser opens a WebSocket without Origin; a REST change needs evidence of this site.
  { name: "the cookie with no Origin, Sec-Fetch-Site or Referer", headers: (f) => cookie(f.main.token), expected: { ...crossSite, ws: ok } },
  { name: "the cookie with Sec-Fetch-Site same-origin", headers: (f) => ({ ...cookie(f.main.token), "sec-fetch-site": "same-origin" }), expected: served },
  { name: "the cookie with Sec-Fetch-Site same-site", headers: (f) => ({ ...cookie(f.main.token), "sec-fetch-site": "same-site" }), expected: crossSite },
  { name: "the cookie with Sec-Fetch-Site cross-site", headers: (f) => ({ ...cookie(f.main.token), "sec-fetch-site": "cross-site" }), expected: crossSite },
  { name: "the cookie with a Referer on this site", headers: (f) => ({ ...cookie(f.main.token), referer: `${f.self}/app/settings` }), expected: served },
  { name: "the cookie with a foreign Referer", headers: (f) => ({ ...cookie(f.main.token), referer: `${foreign}/page` }), expected: crossSite },
  { name: "the cookie with an unreadable Referer", headers: (f) => ({ ...cookie(f.main.token), referer: "not a url" }), expected: crossSite },
  {
    name: "the cookie with this site's Origin and a foreign Referer (Origin decides)",
    headers: (f) => ({ ...cookie(f.main.token), origin: f.self, referer: `${foreign}/page` }),
    expected: served,
  },
  {
    name: "the cookie with a foreign Origin and Sec-Fetch-Site same-origin (Origin decides)",
    headers: (f) => ({ ...cookie(f.main.token), origin: foreign, "sec-fetch-site": "same-origin" }),
    expected: crossSite,
  },
  {
    name: "the cookie beside other cookies, one of them malformed",
    headers: (f) => ({ cookie: `theme=%E0%A4%A; session=${f.main.token}; other=1; broken`, origin: f.self }),
    expected: served,
  },
  { name: "the cookie in quotes", headers: (f) => ({ cookie: `session="${f.main.token}"`, origin: f.self }), expected: served },
  { name: "a session cookie without a value", headers: (f) => ({ cookie: "session", origin: f.self }), expected: refused },
  { name: "an empty session cookie", headers: (f) => ({ cookie: "session=; other=1", origin: f.self }), expected: refused },
  { name: "an undecodable session cookie", headers: (f) => ({ cookie: "session=%E0%A4%A", origin: f.self }), expected: refused },
  { name: "a session cookie with a forbidden character", headers: (f) => ({ cookie: `session=${f.main.token}\\x`, origin: f.self }), expected: refused },
  { name: "a cookie header of separators only", headers: (f) => ({ cookie: ";;=;", origin: f.self }), expected: refused },
  {
    name: "a bearer token and another user's cookie, from a foreign Origin (the bearer decides)",
    headers: (f) => ({ ...bearer(f.main.token), ...cookie(f.other.token), origin: foreign }),
    expected: served,
  },
  {
    name: "an unknown bearer token beside a valid cookie (the bearer decides)",
    headers: (f) => ({ ...bearer("not-a-real-token"), ...cookie(f.main.token), origin: f.self }),
    expected: refused,
  },
  { name: "an observatory key as a bearer token", headers: (f) => bearer(f.observatoryKey), expected: pluginOnly },
  { name: "an observatory key with the scheme in lower case", headers: (f) => ({ authorization: `bearer ${f.observatoryKey}` }), expected: pluginOnly },
  { name: "an observatory key as the session cookie", headers: (f) => ({ ...cookie(f.observatoryKey), origin: f.self }), expected: refused },
  // The Host header is the client's: a browser names our server in it, so only our own pages match it.
  {
    name: "the cookie with a Host of the client's choosing and an Origin that matches it",
    headers: (f) => ({ ...cookie(f.main.token), host: "meridian.invalid:8080", origin: "http://meridian.invalid:8080" }),
    expected: served,
  },
  {
    name: "the cookie with a Host of the client's choosing and this site's address as Origin",
    headers: (f) => ({ ...cookie(f.main.token), host: "meridian.invalid:8080", origin: f.self }),
    expected: crossSite,
  },
];

const withPublicUrl: Case[] = [
  { name: "the cookie from PUBLIC_URL's origin", headers: (f) => ({ ...cookie(f.main.token), origin: PUBLIC_URL }), expected: served },
  { name: "the cookie with a Referer on PUBLIC_URL", headers: (f) => ({ ...cookie(f.main.token), referer: `${PUBLIC_URL}/app/` }), expected: served },
  { name: "the cookie from the address the request reached", headers: (f) => ({ ...cookie(f.main.token), origin: f.self }), expected: crossSite },
  { name: "the cookie from a foreign Origin", headers: (f) => ({ ...cookie(f.main.token), origin: foreign }), expected: crossSite },
  { name: "a bearer token from a foreign Origin", headers: (f) => ({ ...bearer(f.main.token), origin: foreign }), expected: served },
  { name: "an observatory key as a bearer token", headers: (f) => bearer(f.observatoryKey), expected: pluginOnly },
];

/** A request with exactly these headers (fetch would not let a test choose Host). */
function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(url, { method, headers: payload ? { ...headers, "content-type": "application/json" } : headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(payload);
  });
}

const refusal = (status: number, body: string) => `${status} ${(JSON.parse(body) as { code: string }).code}` as Outcome;

async function restOutcome(fixture: Fixture, method: "GET" | "PUT", headers: Record<string, string>): Promise<Outcome> {
  const url = `${fixture.server.url}${method === "GET" ? "/api/v1/auth/me" : "/api/v1/user/profile"}`;
  const response = await send(url, method, headers, method === "PUT" ? { name: "Credentials Table" } : undefined);
  if (response.status !== 200) return refusal(response.status, response.body);
  if (method === "GET") expect((JSON.parse(response.body) as { id: string }).id).toBe(fixture.main.id);
  return ok;
}

async function socketOutcome(fixture: Fixture, path: "/ws" | "/ws/observatory", headers: Record<string, string>): Promise<Outcome> {
  const attempt = await connectWebSocket(`${fixture.server.url.replace(/^http/, "ws")}${path}`, headers);
  if (!attempt.ok) return refusal(attempt.status, attempt.body);
  try {
    if (path === "/ws") {
      const welcome = await attempt.client.waitFor((message) => message.type === "welcome", "welcome");
      expect(welcome.data).toEqual({ userId: fixture.main.id });
    }
    return ok;
  } finally {
    await attempt.client.close();
  }
}

async function outcomes(fixture: Fixture, headers: Record<string, string>): Promise<Outcomes> {
  return {
    write: await restOutcome(fixture, "PUT", headers),
    read: await restOutcome(fixture, "GET", headers),
    ws: await socketOutcome(fixture, "/ws", headers),
    observatory: await socketOutcome(fixture, "/ws/observatory", headers),
  };
}

async function startFixture(env: Record<string, string>): Promise<Fixture> {
  const server = await startTestServer({ ...roomyLimits, MERIDIAN_ROLE: "server", ...env });
  const main = await createAccount(server);
  const other = await createAccount(server);
  const observatory = await server.request("/observatories", { method: "POST", token: main.token, json: { name: "Credentials table" } });
  const { id } = (await observatory.json()) as { id: string };
  const key = await server.request(`/observatories/${id}/api-keys`, { method: "POST", token: main.token, json: { name: "plugin" } });
  expect(key.status).toBe(201);
  const self = new URL(server.url).origin;
  return { server, self, host: new URL(server.url).host, main, other, observatoryKey: ((await key.json()) as { key: string }).key };
}

describe.each<{ label: string; env: Record<string, string>; cases: Case[] }>([
  { label: "without PUBLIC_URL", env: {}, cases: withoutPublicUrl },
  { label: `with PUBLIC_URL=${PUBLIC_URL}`, env: { PUBLIC_URL }, cases: withPublicUrl },
])("credentials and origins $label", ({ env, cases }) => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await startFixture(env);
  });
  afterAll(async () => {
    await fixture?.server.stop();
  });

  it.each(cases)("$name", async ({ headers, expected }) => {
    expect(await outcomes(fixture, headers(fixture))).toEqual(expected);
  });
});
