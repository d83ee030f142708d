import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, images, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let account: Account;
beforeAll(async () => {
  server = await startTestServer({ SIGNUPS_PER_IP_PER_HOUR: "100000", LOGIN_FAILURES_PER_IP: "100000", LOGIN_FAILURES_PER_EMAIL: "100000" });
  account = await createAccount(server, { password: "the real password" });
});
afterAll(() => server?.stop());

/** Strings that have broken servers before. */
const oddStrings: Record<string, string> = {
  emoji: "🔭🌌 👩🏽‍🚀",
  "RTL and bidi overrides": "\u202eevil\u202c \u200fשלום\u200f مرحبا",
  NUL: "a\u0000b",
  "only NUL": "\u0000",
  "lone high surrogate": "x\ud800",
  "lone low surrogate": "\udfffx",
  "zero-width characters": "a\u200b\u200c\u200d\u2060\ufeffb",
  "only zero-width space": "\u200b",
  "combining marks": "Z̴̡͇a̷l̶g̸o̵",
  "line and paragraph separators": "a\u2028b\u2029c",
  "C0 and C1 controls": "\u0001\u001b[31m\u007f\u0085",
  "astral plane letters": "𝕄𝕖𝕣𝕚𝕕𝕚𝕒𝕟",
  "SQL-looking": "' OR 1=1; --",
  HTML: "<script>alert(1)</script>",
  "percent escapes": "%00%ff%",
  "long (10k)": "ü".repeat(10_000),
  "very long (500k)": "a".repeat(500_000),
  empty: "",
  whitespace: " \t\n ",
};

const wrongTypes: Record<string, unknown> = {
  zero: 0,
  "negative number": -1,
  "huge number": 1e308,
  float: 3.14,
  true: true,
  false: false,
  null: null,
  "empty array": [],
  "array of strings": ["a", "b"],
  "empty object": {},
  "nested object": { nested: { deep: [1, { x: null }] } },
};

const rootBodies: Record<string, string> = {
  "JSON null": "null",
  "JSON array": "[]",
  "JSON string": '"text"',
  "JSON number": "42",
  "JSON true": "true",
  "empty body": "",
  "truncated JSON": '{"a": ',
  "trailing garbage": '{"a": 1} xyz',
  "invalid UTF-8": "\u00ff\u00fe",
  "deeply nested arrays": `{"name": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`,
  "__proto__ pollution": '{"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"isAdmin": true}}}',
  "duplicate keys": '{"name": "a", "name": {"b": 1}}',
  "NUL key": '{"\\u0000": 1}',
  "lone surrogate key": '{"\\ud800": 1}',
};

interface Outcome {
  label: string;
  status: number;
  contentType: string | null;
  body: string;
}

interface Attempt {
  label: string;
  send: () => Promise<Response>;
  /** When given, the status the input must legitimately get. */
  expect?: (status: number) => boolean;
}

/** A non-2xx answer must be problem+json whose status and code match; HEAD answers carry no body. */
function isProblem(response: Response, text: string, method: string | undefined): boolean {
  if (!response.headers.get("content-type")?.startsWith("application/problem+json")) return false;
  if (method === "HEAD") return text === "";
  try {
    const problem = JSON.parse(text) as Record<string, unknown>;
    return (
      problem.status === response.status &&
      typeof problem.code === "string" &&
      typeof problem.title === "string" &&
      typeof problem.detail === "string" &&
      typeof problem.type === "string"
    );
  } catch {
    return false;
  }
}

/** Sends every attempt; collects each one that got a 5xx, a non-problem error or an unexpected status. */
async function run(attempts: Attempt[], method?: string) {
  const broken: Outcome[] = [];
  for (const attempt of attempts) {
    const response = await attempt.send();
    const text = await response.text();
    const outcome = { label: attempt.label, status: response.status, contentType: response.headers.get("content-type"), body: text.slice(0, 300) };
    const wrongShape = response.status >= 400 && !isProblem(response, text, method ?? (attempt.label === "HEAD" ? "HEAD" : undefined));
    const unexpected = attempt.expect ? !attempt.expect(response.status) : false;
    if (response.status >= 500 || wrongShape || unexpected) broken.push(outcome);
  }
  expect(broken).toEqual([]);
  expect(attempts.length).toBeGreaterThan(0);
}

const is2xx = (status: number) => status >= 200 && status < 300;
const is4xx = (status: number) => status >= 400 && status < 500;
const uniqueEmail = () => `odd-${randomBytes(5).toString("hex")}@example.com`;

const jsonRequest = (method: string, path: string, body: unknown, token?: string) => () => server.request(path, { method, token, json: body });
const rawRequest = (method: string, path: string, body: BodyInit, contentType: string, token?: string) => () =>
  server.request(path, { method, token, body, headers: { "content-type": contentType } });

/** Malformed bodies, wrong types, unknown fields and odd strings for every field of a JSON route. */
function jsonAttempts(options: {
  method: string;
  path: string;
  token?: () => string;
  base: () => Record<string, unknown>;
  stringFields: string[];
  otherFields?: string[];
  /** Which odd strings are valid input for a field (→ 2xx), which are not (→ 4xx); undefined: either. */
  legit?: (field: string, oddLabel: string) => boolean | undefined;
  /** Values of `wrongTypes` that are in fact valid for a field, by label. */
  validValues?: Record<string, string[]>;
}): Attempt[] {
  const { method, path } = options;
  const token = () => options.token?.();
  const attempts: Attempt[] = [];
  for (const [label, raw] of Object.entries(rootBodies)) {
    attempts.push({
      label: `body: ${label}`,
      send: () => rawRequest(method, path, raw, "application/json", token())(),
      expect: label === "duplicate keys" ? is4xx : undefined,
    });
  }
  for (const contentType of [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=latin1",
    "application/jsonx",
    "image/png",
  ]) {
    attempts.push({ label: `content-type ${contentType}`, send: () => rawRequest(method, path, JSON.stringify(options.base()), contentType, token())() });
  }
  attempts.push({
    label: "JSON over 1 MB",
    send: () => jsonRequest(method, path, { ...options.base(), padding: "x".repeat(1_100_000) }, token())(),
    expect: (status) => status === 413,
  });
  attempts.push({ label: "unknown field", send: () => jsonRequest(method, path, { ...options.base(), unexpected: true }, token())(), expect: is4xx });
  attempts.push({
    label: "unknown nested field",
    send: () => jsonRequest(method, path, { ...options.base(), meta: { a: { b: [1, 2] } } }, token())(),
    expect: is4xx,
  });
  for (const field of [...options.stringFields, ...(options.otherFields ?? [])]) {
    for (const [label, value] of Object.entries(wrongTypes)) {
      const valid = options.validValues?.[field]?.includes(label);
      attempts.push({
        label: `${field}: ${label}`,
        send: () => jsonRequest(method, path, { ...options.base(), [field]: value }, token())(),
        expect: valid ? is2xx : is4xx,
      });
    }
    attempts.push({
      label: `${field}: missing`,
      send: () => jsonRequest(method, path, Object.fromEntries(Object.entries(options.base()).filter(([key]) => key !== field)), token())(),
    });
  }
  for (const field of options.stringFields) {
    for (const [label, value] of Object.entries(oddStrings)) {
      const legit = options.legit?.(field, label);
      attempts.push({
        label: `${field}: ${label}`,
        send: () => jsonRequest(method, path, { ...options.base(), [field]: value }, token())(),
        expect: legit === undefined ? undefined : legit ? is2xx : is4xx,
      });
    }
  }
  return attempts;
}

/** Odd strings a display name may legitimately hold. */
const legitName = (label: string) =>
  [
    "emoji",
    "RTL and bidi overrides",
    "zero-width characters",
    "only zero-width space",
    "combining marks",
    "astral plane letters",
    "SQL-looking",
    "HTML",
    "percent escapes",
  ].includes(label);
const badName = (label: string) =>
  ["NUL", "only NUL", "lone high surrogate", "lone low surrogate", "C0 and C1 controls", "long (10k)", "very long (500k)", "empty", "whitespace"].includes(
    label,
  );

describe("bad input never yields a 500", () => {
  it("POST /api/v1/auth/signup", async () => {
    await run(
      jsonAttempts({
        method: "POST",
        path: "/api/v1/auth/signup",
        base: () => ({ email: uniqueEmail(), password: "long enough", name: "Odd" }),
        stringFields: ["email", "password", "name"],
        legit: (field, label) => {
          if (field === "email") return ["whitespace", "emoji", "NUL", "lone high surrogate", "long (10k)", "empty"].includes(label) ? false : undefined;
          if (field === "password") {
            if (["RTL and bidi overrides", "combining marks"].includes(label)) return true;
            if (["long (10k)", "very long (500k)", "empty", "NUL", "only NUL"].includes(label)) return false;
            return undefined;
          }
          return legitName(label) ? true : badName(label) ? false : undefined;
        },
      }),
    );
  });

  it("POST /api/v1/auth/login", async () => {
    await run(
      jsonAttempts({
        method: "POST",
        path: "/api/v1/auth/login",
        base: () => ({ email: account.email, password: "not the password" }),
        stringFields: ["email", "password"],
        legit: () => false,
      }),
    );
  });

  it("POST /api/v1/auth/logout", async () => {
    const attempts: Attempt[] = [];
    for (const [label, raw] of Object.entries(rootBodies)) {
      attempts.push({
        label: `body: ${label}`,
        send: async () => rawRequest("POST", "/api/v1/auth/logout", raw, "application/json", (await createApiKey(server, account.token)).key)(),
      });
    }
    attempts.push({
      label: "JSON over 1 MB",
      send: () => jsonRequest("POST", "/api/v1/auth/logout", { padding: "x".repeat(1_100_000) }, account.token)(),
      expect: (status) => status === 413,
    });
    attempts.push({ label: "query junk", send: () => server.request("/api/v1/auth/logout?%ff=%00&x=🔭", { method: "POST", token: "junk" }), expect: is4xx });
    await run(attempts);
    expect((await server.request("/api/v1/auth/me", { token: account.token })).status).toBe(200);
  });

  it("GET /api/v1/auth/me, /api/v1/user/api-keys and /api/v1/user/profile", async () => {
    const attempts: Attempt[] = [];
    for (const path of ["/api/v1/auth/me", "/api/v1/user/api-keys", "/api/v1/user/profile"]) {
      for (const query of ["?%00", "?a=%ff%fe", "?limit=-1&cursor=%F0%9F%94%AD", `?x=${"a".repeat(6000)}`, "?__proto__[admin]=1", "?limit=1e308&limit=abc"]) {
        attempts.push({ label: `${path}${query.slice(0, 30)}`, send: () => server.request(`${path}${query}`, { token: account.token }) });
      }
      for (const [label, token] of Object.entries({
        "latin-1 token": "\u00ff\u00fe",
        "very long token": "x".repeat(8000),
        "token with spaces": "a b c",
        "empty token": "",
      })) {
        attempts.push({ label: `${path} with ${label}`, send: () => server.request(path, { headers: { authorization: `Bearer ${token}` } }), expect: is4xx });
      }
      for (const cookie of ["session=", "session=%00", "session=\u00ff", `session=${"y".repeat(6000)}`, "session=a; session=b", "=;;;=", "session"]) {
        attempts.push({ label: `${path} with cookie ${cookie.slice(0, 20)}`, send: () => server.request(path, { headers: { cookie } }), expect: is4xx });
      }
    }
    await run(attempts);
  });

  it("POST /api/v1/user/api-keys", async () => {
    await run(
      jsonAttempts({
        method: "POST",
        path: "/api/v1/user/api-keys",
        token: () => account.token,
        base: () => ({ name: "odd key" }),
        stringFields: ["name"],
        legit: (_field, label) => (legitName(label) ? true : badName(label) ? false : undefined),
      }),
    );
  });

  it("DELETE /api/v1/user/api-keys/{id} and GET /api/v1/users/{id}/avatar with odd ids", async () => {
    const ids = [
      "%F0%9F%94%AD",
      "%E2%80%AE%D7%A9",
      "%00",
      "a%00b",
      "%ED%A0%80",
      "%E2%80%8B",
      "%",
      "%zz",
      "..%2F..%2Fetc%2Fpasswd",
      "a%2Fb",
      "%20",
      "key_%27%20OR%201%3D1",
      "x".repeat(101),
      "x".repeat(5000),
      "__proto__",
      "constructor",
      "null",
      "-1",
      "1e308",
    ];
    const attempts: Attempt[] = [];
    for (const id of ids) {
      attempts.push({
        label: `DELETE api-keys/${id.slice(0, 20)}`,
        send: () => server.request(`/api/v1/user/api-keys/${id}`, { method: "DELETE", token: account.token }),
        expect: is4xx,
      });
      attempts.push({
        label: `GET users/${id.slice(0, 20)}/avatar`,
        send: () => server.request(`/api/v1/users/${id}/avatar`, { token: account.token }),
        expect: is4xx,
      });
    }
    for (const [label, raw] of Object.entries(rootBodies)) {
      attempts.push({
        label: `DELETE with body: ${label}`,
        send: () => rawRequest("DELETE", "/api/v1/user/api-keys/key_missing", raw, "application/json", account.token)(),
        expect: is4xx,
      });
    }
    await run(attempts);
  });

  it("GET /api/v1/user/profile and PUT /api/v1/user/profile", async () => {
    const base = () => ({ name: "Odd Profile", notificationPreferences: { email: true, push: false } });
    const attempts = jsonAttempts({
      method: "PUT",
      path: "/api/v1/user/profile",
      token: () => account.token,
      base,
      stringFields: ["name"],
      otherFields: ["notificationPreferences"],
      validValues: { notificationPreferences: ["empty object"] },
      legit: (_field, label) => (legitName(label) ? true : badName(label) ? false : undefined),
    });
    for (const preference of ["email", "push", "systemEvents", "observationEvents", "sms"]) {
      for (const [label, value] of Object.entries({ ...wrongTypes, "a string": "true", "odd string": "\u0000\ud800" })) {
        if (typeof value === "boolean" && preference !== "sms") continue;
        attempts.push({
          label: `notificationPreferences.${preference}: ${label}`,
          send: () => jsonRequest("PUT", "/api/v1/user/profile", { notificationPreferences: { [preference]: value } }, account.token)(),
          expect: is4xx,
        });
      }
    }
    await run(attempts);
    const profile = await (await server.request("/api/v1/user/profile", { token: account.token })).json();
    expect(Object.keys(profile.notificationPreferences).sort()).toEqual(["email", "observationEvents", "push", "systemEvents"]);
    for (const value of Object.values(profile.notificationPreferences)) expect(typeof value).toBe("boolean");
  });

  it("PUT /api/v1/user/avatar", async () => {
    const owner = await createAccount(server);
    const put = (body: BodyInit, contentType: string) => rawRequest("PUT", "/api/v1/user/avatar", body, contentType, owner.token);
    const attempts: Attempt[] = [
      ...Object.entries(rootBodies).map(([label, raw]) => ({
        label: `JSON ${label}`,
        send: put(raw, "application/json"),
        expect: (status: number) => status === 415,
      })),
      ...Object.entries(oddStrings).map(([label, text]) => ({
        label: `text ${label}`,
        send: put(text, "text/plain; charset=utf-8"),
        expect: (status: number) => status === 415 || status === 413,
      })),
      { label: "random bytes", send: put(randomBytes(4096), "image/png"), expect: (status) => status === 415 },
      { label: "PNG signature then junk", send: put(Buffer.concat([images.png.subarray(0, 8), randomBytes(1024)]), "image/png"), expect: is2xx },
      { label: "GIF with a JPEG content type", send: put(images.gif, "image/jpeg"), expect: is2xx },
      { label: "no content type", send: () => server.request("/api/v1/user/avatar", { method: "PUT", token: owner.token, body: images.png }), expect: is2xx },
      { label: "odd content type", send: put(images.png, "image/png;;;=;"), expect: is2xx },
      {
        label: "multipart",
        send: put(`--x\r\nContent-Type: image/png\r\n\r\n${images.png.toString("latin1")}\r\n--x--`, "multipart/form-data; boundary=x"),
        expect: (status) => status === 415,
      },
      { label: "3 MB", send: put(Buffer.concat([images.png, Buffer.alloc(3 * 1024 * 1024)]), "image/png"), expect: (status) => status === 413 },
    ];
    await run(attempts);
  });

  it("GET /api/v1/users/{id}/avatar with odd query strings and methods", async () => {
    const attempts: Attempt[] = [];
    for (const query of ["?v=%00", "?v=%ff", `?v=${"a".repeat(6000)}`, "?v=🔭"]) {
      attempts.push({
        label: `avatar${query.slice(0, 12)}`,
        send: () => server.request(`/api/v1/users/${account.id}/avatar${query}`, { token: account.token }),
        expect: is4xx,
      });
    }
    attempts.push({ label: "HEAD", send: () => server.request(`/api/v1/users/${account.id}/avatar`, { method: "HEAD", token: account.token }) });
    attempts.push({ label: "OPTIONS", send: () => server.request(`/api/v1/users/${account.id}/avatar`, { method: "OPTIONS", token: account.token }) });
    await run(attempts);
  });
});

describe("odd but valid input round-trips", () => {
  it.each([
    ["emoji", "🔭 secret 🌌"],
    ["NUL", "pass\u0000word"],
    ["RTL marks", "\u202eمدرسة سرية\u200f"],
    ["zero-width", "pass\u200bword"],
    ["256 characters", "p".repeat(256)],
  ])("a password with %s signs up and logs in", async (_label, password) => {
    const email = uniqueEmail();
    const signup = await server.request("/api/v1/auth/signup", { method: "POST", json: { email, password, name: "Odd" } });
    expect(signup.status).toBe(201);
    const login = await server.request("/api/v1/auth/login", { method: "POST", json: { email, password } });
    expect(login.status).toBe(200);
    const wrong = await server.request("/api/v1/auth/login", { method: "POST", json: { email, password: `${password.slice(0, -1)}#` } });
    expect(wrong.status).toBe(401);
  });

  it.each([
    ["emoji", "Zoë 🔭"],
    ["RTL text", "\u200fשלום עולם"],
    ["astral letters", "𝕄𝕖𝕣𝕚𝕕𝕚𝕒𝕟"],
    ["combining marks", "Z̴a̷l̶g̸o̵"],
  ])("a name with %s is stored exactly", async (_label, name) => {
    const response = await server.request("/api/v1/user/profile", { method: "PUT", token: account.token, json: { name } });
    expect(response.status).toBe(200);
    expect((await (await server.request("/api/v1/auth/me", { token: account.token })).json()).name).toBe(name);
  });
});
