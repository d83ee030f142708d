import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { openRawConnection, type RawOutcome, type RawRequest } from "../support/raw-http-connection";
import { serverWithLimits } from "../support/server-with-limits";
import type { TestServer } from "../support/test-server";

/*
 * A body past its limit is answered (413, or 401 before a protected route reads it) while the
 * client is still sending it. The server then reads and drops the rest, as nginx's lingering close
 * does, so the client gets to read its answer: closing at once made the client's next write fail
 * (EPIPE, ECONNRESET) and a browser or SDK showed a network failure instead of the problem.
 */

const MiB = 1024 * 1024;
const MAX_UPLOAD = MiB;
/** Just over the JSON limit (1 MiB), the size the issue saw (1.4 MB), and several MB. */
const SIZES = [MiB + 1024, 1_400_000, 5 * MiB];
const ROUNDS = 4;

/** A JSON document of `size` bytes: a name padded out past any limit. */
const jsonOfSize = (size: number) => {
  const frame = JSON.stringify({ name: "" });
  return Buffer.from(JSON.stringify({ name: "x".repeat(size - frame.length) }));
};

const describeOutcome = (outcome: RawOutcome) => {
  if ("error" in outcome) return outcome.error;
  const { code } = JSON.parse(outcome.body) as { code?: string };
  return `${outcome.status} ${code} ${outcome.headers["content-type"]}`;
};

/**
 * Sends each route's requests, every size `ROUNDS` times, one after another over a keep-alive
 * connection of its own (the routes side by side); a connection that ends is replaced. Returns
 * how many of each outcome there were, and how many connections each route needed.
 */
async function tally(url: string, routes: Array<{ name: string; request: (size: number) => RawRequest }>) {
  const counts: Record<string, number> = {};
  const connections: Record<string, number> = {};
  await Promise.all(
    routes.map(async (route) => {
      let connection = await openRawConnection(url);
      connections[route.name] = 1;
      try {
        for (let round = 0; round < ROUNDS; round += 1)
          for (const size of SIZES) {
            if (!connection.usable) {
              connection.close();
              connection = await openRawConnection(url);
              connections[route.name]! += 1;
            }
            const name = `${route.name}: ${describeOutcome(await connection.send(route.request(size)))}`;
            counts[name] = (counts[name] ?? 0) + 1;
          }
      } finally {
        connection.close();
      }
    }),
  );
  return { counts, connections };
}

describe("a body past its limit, over keep-alive connections", () => {
  const limited = serverWithLimits({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD) });
  let server: TestServer;
  let owner: Account;
  let key: string;
  let observationId: string;
  const { must } = jsonApi(() => server);
  beforeAll(async () => {
    server = limited.server;
    owner = await createAccount(server);
    const vega = { name: "Vega", ra: 279.23, dec: 38.78, exposures: [{ filter: "V", exposureSeconds: 1, count: 1, binning: 1 }] };
    ({
      key,
      observation: { id: observationId },
    } = await observationWithKey(must, { owner, project: "Oversized", observation: { name: "Big", targets: [vega] } }));
  });
  const each = SIZES.length * ROUNDS;

  it("answers every JSON body past the limit to POST /observatories, POST /organizations, PUT /api/v1/user/profile 413, keeping the connection", async () => {
    const json = (method: string, path: string) => (size: number) => ({
      method,
      path,
      headers: { authorization: `Bearer ${owner.token}`, "content-type": "application/json" },
      body: jsonOfSize(size),
    });
    const { counts, connections } = await tally(server.url, [
      { name: "observatories", request: json("POST", "/observatories") },
      { name: "organizations", request: json("POST", "/organizations") },
      { name: "profile", request: json("PUT", "/api/v1/user/profile") },
    ]);
    const problem = "413 PAYLOAD_TOO_LARGE application/problem+json";
    expect(counts).toEqual({ [`observatories: ${problem}`]: each, [`organizations: ${problem}`]: each, [`profile: ${problem}`]: each });
    // Each body was read and dropped after its answer: the next request came on the same connection.
    expect(connections).toEqual({ observatories: 1, organizations: 1, profile: 1 });
  });

  it("answers a JSON body past the limit without a credential 401 on protected routes and 413 on signup and login, keeping the connection", async () => {
    const json = (path: string) => (size: number) => ({ method: "POST", path, headers: { "content-type": "application/json" }, body: jsonOfSize(size) });
    const { counts, connections } = await tally(server.url, [
      { name: "observatories", request: json("/observatories") },
      { name: "organizations", request: json("/organizations") },
      { name: "signup", request: json("/api/v1/auth/signup") },
      { name: "login", request: json("/api/v1/auth/login") },
    ]);
    const unauthenticated = "401 UNAUTHENTICATED application/problem+json";
    const tooLarge = "413 PAYLOAD_TOO_LARGE application/problem+json";
    expect(counts).toEqual({
      [`observatories: ${unauthenticated}`]: each,
      [`organizations: ${unauthenticated}`]: each,
      [`signup: ${tooLarge}`]: each,
      [`login: ${tooLarge}`]: each,
    });
    expect(connections).toEqual({ observatories: 1, organizations: 1, signup: 1, login: 1 });
  });

  it("answers a tRPC batch past the limit without a credential 401 when it names a protected procedure and 413 when all are public", async () => {
    const json = (path: string, token?: string) => (size: number) => ({
      method: "POST",
      path,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: jsonOfSize(size),
    });
    const { counts, connections } = await tally(server.url, [
      { name: "create", request: json("/trpc/organizations.create") },
      { name: "mixed", request: json("/trpc/auth.signup,organizations.create") },
      { name: "signup", request: json("/trpc/auth.signup") },
      { name: "signed in", request: json("/trpc/organizations.create", owner.token) },
    ]);
    const unauthenticated = "401 UNAUTHENTICATED application/problem+json";
    const tooLarge = "413 PAYLOAD_TOO_LARGE application/problem+json";
    expect(counts).toEqual({
      [`create: ${unauthenticated}`]: each,
      [`mixed: ${unauthenticated}`]: each,
      [`signup: ${tooLarge}`]: each,
      [`signed in: ${tooLarge}`]: each,
    });
    expect(connections).toEqual({ create: 1, mixed: 1, signup: 1, "signed in": 1 });
  });

  it("answers every upload past MAX_UPLOAD_BYTES 413, and every one without a credential 401, keeping the connection", async () => {
    const upload = (headers: Record<string, string>) => (size: number) => ({
      method: "POST",
      path: `/observations/${observationId}/files?filename=big.fits`,
      headers: { "content-type": "application/octet-stream", ...headers },
      body: Buffer.alloc(size, 7),
    });
    const { counts, connections } = await tally(server.url, [
      { name: "too large", request: upload({ authorization: `Bearer ${key}` }) },
      { name: "no credential", request: upload({}) },
    ]);
    expect(counts).toEqual({
      "too large: 413 PAYLOAD_TOO_LARGE application/problem+json": each,
      "no credential: 401 UNAUTHENTICATED application/problem+json": each,
    });
    expect(connections).toEqual({ "too large": 1, "no credential": 1 });
  });
});
