import { createServer, request, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { allOperations, createApiApp } from "@meridian/api";
import { connectDatabase } from "@meridian/db";
import type { Deps } from "@meridian/domain/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, createApiKey, loginSession, roomyLimits } from "../support/auth-suite";
import { freePort } from "../../scripts/free-port";
import { startTestServer, type TestServer } from "../support/test-server";

// The direct reads (packages/api/src/http/direct-reads.ts) answer the hot GETs before Hono's
// pipeline. Here the same app is served three ways side by side: the pipeline alone, the direct
// reads in front of the pipeline (as `pnpm start` serves it), and the direct reads in front of a
// stand-in that answers 599, which shows what the direct reads answered themselves.
const HANDED_ON = 599;
const ADMIN = { email: "chief@example.com", password: "chief password" };

let server: TestServer;
let pipelineOnly: string;
let served: string;
let directOnly: string;
const listening: Server[] = [];

async function listen(listener: RequestListener): Promise<string> {
  const http = createServer(listener);
  listening.push(http);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const handOn: RequestListener = (_request, response) => {
  response.writeHead(HANDED_ON);
  response.end();
};

/** An app on `deps` served by the pipeline alone, and by the direct reads in front of the stand-in. */
async function serveBothWays(deps: Deps) {
  const { app, withDirectReads } = createApiApp({ deps, startedAt: new Date(), websocketStatus: () => ({ running: true, connections: 0 }) });
  const honoListener = getRequestListener(app.fetch);
  const pipeline: RequestListener = (request, response) => void honoListener(request, response);
  return { pipelineOnly: await listen(pipeline), served: await listen(withDirectReads(pipeline)), directOnly: await listen(withDirectReads(handOn)) };
}

beforeAll(async () => {
  server = await startTestServer({ ...roomyLimits, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  ({ pipelineOnly, served, directOnly } = await serveBothWays(server.server.runtime.deps));
});
afterAll(async () => {
  for (const http of listening) await new Promise((resolve) => http.close(resolve));
  await server?.stop();
});

/** The GETs of a fixed path without input: what the direct reads take (`readsDirectly`). */
const directPaths = [
  ...allOperations.filter((operation) => operation.method === "get" && operation.path && !/[{]/.test(operation.path) && !operation.params && !operation.query),
].map((operation) => operation.path!);
const paths = [...directPaths, "/api/health/live", "/api/health/ready", "/api/health"];

/** What varies between two answers given a moment apart: timings, the process's uptime, the jobs waiting (the sign-ups' emails). */
const steady = (text: string) => text.replace(/"(latencyMs|uptimeSeconds|queuedJobs)":[\d.]+/g, '"$1":0');

interface Seen {
  status: number;
  contentType: string | null;
  body: string;
  requestId: string | null;
  servedBy: string | null;
  retryAfter: string | null;
}

async function get(origin: string, path: string, headers: Record<string, string>): Promise<Seen> {
  const response = await fetch(`${origin}${path}`, { headers });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: steady(await response.text()),
    requestId: response.headers.get("x-request-id"),
    servedBy: response.headers.get("x-served-by"),
    retryAfter: response.headers.get("retry-after"),
  };
}

describe("direct reads", () => {
  it("takes the hot reads and nothing that carries input", () => {
    expect(paths).toEqual(expect.arrayContaining(["/api/v1/auth/me", "/api/v1/user/motd/pending", "/api/v1/user/profile"]));
    expect(paths).not.toContain("/observations");
  });

  it("answers every caller of every direct read as the pipeline does, and leaves only callers without credentials to it", async () => {
    const user = await createAccount(server);
    const { key } = await createApiKey(server, user.token);
    const admin = await loginSession(server, ADMIN);
    const observatory = (await (await server.request("/observatories", { method: "POST", token: user.token, json: { name: "Direct reads" } })).json()) as {
      id: string;
    };
    const observatoryKey = (
      (await (await server.request(`/observatories/${observatory.id}/api-keys`, { method: "POST", token: user.token, json: { name: "plugin" } })).json()) as {
        key: string;
      }
    ).key;
    const callers: Record<string, Record<string, string>> = {
      nobody: {},
      "a user's session": { authorization: `Bearer ${user.token}` },
      "a user's API key": { authorization: `Bearer ${key}` },
      "a user's cookie from another site": { cookie: `session=${user.token}`, origin: "https://elsewhere.example" },
      "a server admin": { authorization: `Bearer ${admin.token}` },
      "an observatory key": { authorization: `Bearer ${observatoryKey}` },
      "a token nobody has": { authorization: "Bearer mst_not-a-token-anyone-holds" },
    };
    let answeredDirectly = 0;
    for (const path of paths)
      for (const [caller, headers] of Object.entries(callers)) {
        const expected = await get(pipelineOnly, path, headers);
        const seen = await get(served, path, headers);
        const direct = await get(directOnly, path, headers);
        const label = `${caller} GET ${path}`;
        expect({ label, status: seen.status, contentType: seen.contentType, body: seen.body }).toEqual({
          label,
          status: expected.status,
          contentType: expected.contentType,
          body: expected.body,
        });
        expect(seen.requestId, label).toMatch(/^[\w.:-]+$/);
        expect(seen.servedBy, label).toBeTruthy();
        // Answered here unless no credential was sent to a route that needs one: that refusal is the pipeline's.
        const public_ = path.startsWith("/api/health") || path === "/api/v1/maintenance";
        if (caller === "nobody" && !public_) expect({ label, status: direct.status }).toEqual({ label, status: HANDED_ON });
        else {
          if (direct.status >= 200 && direct.status < 300) answeredDirectly += 1;
          expect({ label, status: direct.status, contentType: direct.contentType, body: direct.body }).toEqual({
            label,
            status: expected.status,
            contentType: expected.contentType,
            body: expected.body,
          });
        }
      }
    // Every read answers at least one of these callers with a success.
    expect(answeredDirectly).toBeGreaterThan(paths.length);
  });

  it("keeps the request id a client sends, and makes one otherwise", async () => {
    const user = await createAccount(server);
    const kept = await get(directOnly, "/api/v1/auth/me", { authorization: `Bearer ${user.token}`, "x-request-id": "trace-42" });
    expect(kept).toMatchObject({ status: 200, requestId: "trace-42" });
    const made = await get(directOnly, "/api/v1/auth/me", { authorization: `Bearer ${user.token}`, "x-request-id": "not a usable id" });
    expect(made.status).toBe(200);
    expect(made.requestId).not.toBe("not a usable id");
    expect(made.requestId).toMatch(/^[\w.:-]+$/);
  });

  it("hands on what it does not take: other methods, a query, a trailing slash, a doubled slash, a body, a HEAD", async () => {
    const user = await createAccount(server);
    const authorization = `Bearer ${user.token}`;
    for (const path of ["/api/v1/auth/me?fields=all", "/api/v1/auth/me/", "//api/v1/auth/me"])
      expect((await get(directOnly, path, { authorization })).status, path).toBe(HANDED_ON);
    for (const method of ["HEAD", "POST", "PUT", "DELETE"])
      expect((await fetch(`${directOnly}/api/v1/auth/me`, { method, headers: { authorization } })).status, method).toBe(HANDED_ON);
    // fetch refuses a GET with a body; Node's client sends one.
    const withBody = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        `${directOnly}/api/v1/auth/me`,
        { method: "GET", headers: { authorization, "content-type": "application/json", "content-length": "2" } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on("error", reject);
      outgoing.end("{}");
    });
    expect(withBody).toBe(HANDED_ON);
  });

  it("answers an operation's error as the pipeline does: a database without a connection is 503 with Retry-After", async () => {
    const user = await createAccount(server);
    const authorization = `Bearer ${user.token}`;
    // The user's principal is now in the process's cache, which the broken app below shares: only the read itself fails.
    expect((await get(directOnly, "/api/v1/auth/me", { authorization })).status).toBe(200);
    const nowhere = connectDatabase(`postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`, { max: 1, connectTimeoutSeconds: 2 });
    try {
      const deps = server.server.runtime.deps;
      const broken = await serveBothWays({ ...deps, db: nowhere.db, sql: nowhere.sql });
      // The sessions list is read from the database every time (no cache answers it).
      const expected = await get(broken.pipelineOnly, "/api/v1/user/sessions", { authorization });
      const direct = await get(broken.directOnly, "/api/v1/user/sessions", { authorization });
      expect(expected).toMatchObject({ status: 503, contentType: "application/problem+json" });
      expect(JSON.parse(expected.body)).toMatchObject({ code: "SERVICE_UNAVAILABLE", instance: "/api/v1/user/sessions" });
      expect({ status: direct.status, contentType: direct.contentType, body: direct.body, retryAfter: direct.retryAfter }).toEqual({
        status: expected.status,
        contentType: expected.contentType,
        body: expected.body,
        retryAfter: expected.retryAfter,
      });
      expect(direct.retryAfter).toBe("5");
    } finally {
      await nowhere.close();
    }
  });

  it("serves the running server's hot reads as they were (pnpm start puts them in front)", async () => {
    const user = await createAccount(server);
    const response = await server.request("/api/v1/auth/me", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-served-by")).toBeTruthy();
    expect(await response.json()).toMatchObject({ id: user.id, email: user.email });
  });
});
