import { appRouter } from "@meridian/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem } from "../support/auth-suite";
import { JUNK_BODIES, JUNK_IDS, type JunkBody } from "../support/operation-walk";
import { startTestServer, type TestServer } from "../support/test-server";

interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, unknown> };
}
type Paths = Record<string, Record<string, Operation>>;

let server: TestServer;
let paths: Paths;
beforeAll(async () => {
  server = await startTestServer({ MERIDIAN_ROLE: "server" });
  paths = ((await (await server.request("/api/openapi.json")).json()) as { paths: Paths }).paths;
});
afterAll(() => server?.stop());

const METHODS = ["get", "post", "put", "patch", "delete"];
const operations = () =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation, isProtected: (operation.security ?? []).length > 0 })),
  );

const junkIds = [...JUNK_IDS, "a%00b"];
const junkQuery = `?limit=-1&limit=abc&cursor=&all=maybe&q=${"q".repeat(5000)}&scope=nowhere&x=%00`;
/** Bodies that fail before any domain rule. */
const junkBodies: JunkBody[] = [
  ...JUNK_BODIES,
  { label: "empty JSON", body: "", contentType: "application/json" },
  { label: "form", body: "a=1&b=2", contentType: "application/x-www-form-urlencoded" },
];
/** Ways of being signed out: nothing, a bearer token nobody issued, a session cookie nobody issued. */
const signedOut: Array<{ label: string; headers: Record<string, string> }> = [
  { label: "no credentials", headers: {} },
  { label: "an unknown bearer token", headers: { authorization: "Bearer not-a-token" } },
  { label: "an unknown session cookie", headers: { cookie: "session=not-a-session", origin: "https://elsewhere.example" } },
];

/** Runs `check` over `items`, eight at a time. */
async function inBatches<T>(items: T[], check: (item: T) => Promise<void>) {
  for (let start = 0; start < items.length; start += 8) await Promise.all(items.slice(start, start + 8).map(check));
}

function requestsFor(method: string, path: string) {
  const withIds = junkIds.map((id) => path.replace(/\{[^}]+\}/g, id));
  const urls = [...withIds, `${withIds[0]}${junkQuery}`];
  const bodies = method === "GET" || method === "DELETE" ? [...junkBodies.slice(0, 1), undefined] : junkBodies;
  return urls.flatMap((url) =>
    bodies.flatMap((body) =>
      signedOut.map((caller) => ({
        label: `${method} ${url.slice(0, 60)} with ${body?.label ?? "no body"} and ${caller.label}`,
        send: () =>
          fetch(`${server.url}${url}`, {
            method,
            headers: { ...caller.headers, ...(body?.contentType ? { "content-type": body.contentType } : {}) },
            body: method === "GET" ? undefined : body?.body,
          }),
      })),
    ),
  );
}

describe("REST: credentials are checked before input", () => {
  it("the document has protected and public operations to walk", () => {
    const all = operations();
    expect(all.filter((operation) => operation.isProtected).length).toBeGreaterThan(50);
    expect(all.filter((operation) => !operation.isProtected).map((operation) => `${operation.method} ${operation.path}`)).toContain("POST /api/v1/auth/signup");
  });

  // About ten thousand requests: sent a few at a time, with room for a loaded machine.
  it("answers 401 UNAUTHENTICATED to every protected operation whatever the params, query and body", { timeout: 300_000 }, async () => {
    for (const { method, path } of operations().filter((operation) => operation.isProtected)) {
      await inBatches(requestsFor(method, path), async (attempt) => {
        const response = await attempt.send();
        const text = await response.clone().text();
        expect({ attempt: attempt.label, status: response.status, text }).toMatchObject({ status: 401 });
        await expectProblem(response, 401, "UNAUTHENTICATED");
      });
    }
  });

  it("does not answer 401 to public operations", { timeout: 120_000 }, async () => {
    for (const { method, path } of operations().filter((operation) => !operation.isProtected)) {
      for (const attempt of requestsFor(method, path).filter((attempt) => attempt.label.endsWith("no credentials"))) {
        const response = await attempt.send();
        expect({ attempt: attempt.label, status: response.status }).not.toMatchObject({ status: 401 });
        await response.body?.cancel();
      }
    }
  });
});

interface TrpcErrorBody {
  error: { data: { code: string } };
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { access?: string } } }>).map(
  ([path, procedure]) => ({
    path,
    type: procedure._def.type,
    isProtected: procedure._def.meta?.access !== "public",
  }),
);

const junkInputs = ['{"json": ', JSON.stringify({ id: "x".repeat(500), limit: -1, name: 7, unknownField: true }), JSON.stringify([1, 2]), "null", "%00"];

function trpcRequest(path: string, type: string, input: string, batch = false) {
  const batchInput = batch ? `{"0":${input},"1":${input}}` : input;
  const url = `${server.url}/trpc/${batch ? `${path},${path}` : path}${batch ? "?batch=1" : ""}`;
  if (type === "query") return fetch(`${url}${batch ? "&" : "?"}input=${encodeURIComponent(batchInput)}`);
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: batchInput });
}

/** The Meridian codes of a tRPC answer, one per call (a batch answers with an array). */
async function trpcCodes(response: Response): Promise<string[]> {
  const text = await response.text();
  const body = JSON.parse(text) as TrpcErrorBody | TrpcErrorBody[] | { result: unknown };
  const calls = Array.isArray(body) ? body : [body];
  return calls.map((call) => ("error" in call ? call.error.data.code : "OK"));
}

describe("tRPC: credentials are checked before input", () => {
  it("the router has protected and public procedures to walk", () => {
    expect(procedures.filter((procedure) => procedure.isProtected).length).toBeGreaterThan(50);
    expect(procedures.filter((procedure) => !procedure.isProtected).map((procedure) => procedure.path)).toEqual(
      expect.arrayContaining(["auth.signup", "auth.login"]),
    );
  });

  it("answers UNAUTHENTICATED to every protected procedure, batched or not, whatever the input", { timeout: 300_000 }, async () => {
    for (const { path, type } of procedures.filter((procedure) => procedure.isProtected)) {
      for (const input of junkInputs) {
        for (const batch of [false, true]) {
          const response = await trpcRequest(path, type, input, batch);
          const status = response.status;
          const codes = await trpcCodes(response);
          expect({ path, input, batch, status, codes }).toEqual({
            path,
            input,
            batch,
            status: 401,
            codes: batch ? ["UNAUTHENTICATED", "UNAUTHENTICATED"] : ["UNAUTHENTICATED"],
          });
        }
      }
    }
  });

  it("does not answer UNAUTHENTICATED to public procedures", { timeout: 120_000 }, async () => {
    for (const { path, type } of procedures.filter((procedure) => !procedure.isProtected)) {
      for (const input of junkInputs) {
        const codes = await trpcCodes(await trpcRequest(path, type, input));
        expect({ path, input, codes }).not.toMatchObject({ codes: ["UNAUTHENTICATED"] });
      }
    }
  });
});
