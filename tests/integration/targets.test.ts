import { parseDeclination, parseRightAscension } from "@meridian/rules";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, describeAuthSuite, expectProblem, roomyLimits, type Account } from "../support/auth-suite";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let account: Account;
beforeAll(async () => {
  server = await startTestServer(roomyLimits);
  account = await createAccount(server);
});
afterAll(() => server?.stop());

interface TargetMatch {
  name: string;
  designation: string;
  aliases: string[];
  ra: number;
  dec: number;
  epoch: string;
  kind: string;
  catalog: string;
}

async function resolve(name: string): Promise<TargetMatch> {
  const response = await server.request(`/targets/resolve?name=${encodeURIComponent(name)}`, { token: account.token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as TargetMatch;
}

async function search(q: string): Promise<TargetMatch[]> {
  const response = await server.request(`/targets/search?q=${encodeURIComponent(q)}`, { token: account.token });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { items: TargetMatch[] }).items;
}

const degrees = (result: ReturnType<typeof parseRightAscension>) => (result.ok ? result.degrees : Number.NaN);
/** Angular distance in arcseconds, good enough for small separations. */
const separation = (a: { ra: number; dec: number }, b: { ra: number; dec: number }) =>
  Math.hypot((a.ra - b.ra) * Math.cos((a.dec * Math.PI) / 180), a.dec - b.dec) * 3600;

describeAuthSuite(() => server, { method: "GET", path: "/targets/resolve", prepare: () => ({ path: "/targets/resolve?name=M42" }), success: 200 });
describeAuthSuite(() => server, { method: "GET", path: "/targets/search", prepare: () => ({ path: "/targets/search?q=orion" }), success: 200 });

describe("GET /targets/resolve", () => {
  it("gives the Orion Nebula the same position by every name, OpenNGC's", async () => {
    const byName = await Promise.all(["Orion Nebula", "M 42", "M42", "NGC 1976", "ngc1976", "Great Orion Nebula"].map(resolve));
    for (const match of byName) {
      expect(match).toMatchObject({ designation: "M42", catalog: "Messier", kind: "nebula", epoch: "J2000" });
      expect(match.aliases).toEqual(expect.arrayContaining(["NGC 1976", "Orion Nebula"]));
      // OpenNGC: 05:35:16.48 −05:23:22.8.
      expect(match.ra).toBeCloseTo(degrees(parseRightAscension("05:35:16.48")), 5);
      expect(match.dec).toBeCloseTo(degrees(parseDeclination("-05:23:22.8")), 5);
    }
    // Within a few arcseconds of the usual textbook position (05h 35m 16.8s, −05° 23′ 14″).
    const textbook = { ra: degrees(parseRightAscension("05:35:16.8")), dec: degrees(parseDeclination("-05:23:14")) };
    expect(separation(byName[0]!, textbook)).toBeLessThan(15);
    // `name` is the catalog's spelling of what was asked for.
    expect(byName.map((match) => match.name)).toEqual(["Orion Nebula", "M42", "M42", "NGC 1976", "NGC 1976", "Great Orion Nebula"]);
  });

  it("reads Messier, NGC and IC numbers and common names however they are written", async () => {
    for (const name of ["M31", "m 31", "Messier 31", "NGC 224", "NGC0224", "ngc224", "Andromeda Galaxy", "ANDROMEDA galaxy"]) {
      expect(await resolve(name), name).toMatchObject({ designation: "M31", kind: "galaxy", catalog: "Messier" });
    }
    expect(await resolve("IC 434")).toMatchObject({ name: "IC 434", designation: "IC 434", catalog: "IC", kind: "nebula" });
    expect(await resolve("ic0434")).toMatchObject({ designation: "IC 434" });
    expect(await resolve("Pleiades")).toMatchObject({ name: "Pleiades", designation: "M45", kind: "open_cluster" });
    expect(await resolve("Ring Nebula")).toMatchObject({ name: "Ring Nebula", designation: "M57", kind: "planetary_nebula" });
    expect(await resolve("Barnard's Merope Nebula")).toMatchObject({ designation: "IC 349" });
  });

  it("knows the IAU-named stars and their designations", async () => {
    const vega = await resolve("Vega");
    expect(vega).toMatchObject({ name: "Vega", designation: "Vega", catalog: "IAU", kind: "star" });
    // Vega: 18h 36m 56.3s +38° 47′ 01″ (J2000).
    expect(separation(vega, { ra: degrees(parseRightAscension("18:36:56.3")), dec: degrees(parseDeclination("+38:47:01")) })).toBeLessThan(5);
    expect(await resolve("betelgeuse")).toMatchObject({ name: "Betelgeuse", kind: "star" });
    expect(await resolve("alpha lyr")).toMatchObject({ name: "α Lyr", designation: "Vega" });
    expect(await resolve("α Lyr")).toMatchObject({ designation: "Vega" });
    expect(await resolve("Alpha Centauri")).toMatchObject({ designation: "Rigil Kentaurus" });
    const polaris = await resolve("polaris");
    expect(polaris.dec).toBeGreaterThan(89);
    expect(await resolve("Sirius")).toMatchObject({ designation: "Sirius" });
  });

  it("answers 404 TARGET_NOT_FOUND for a name it does not know", async () => {
    for (const name of ["Planet X", "M 111", "NGC 99999", "!!!"]) {
      const problem = await expectProblem(
        await server.request(`/targets/resolve?name=${encodeURIComponent(name)}`, { token: account.token }),
        404,
        "TARGET_NOT_FOUND",
      );
      expect(problem.detail).toContain(name);
    }
  });

  it("refuses a missing, empty or overlong name with 400, and reads nothing without credentials", async () => {
    for (const query of ["", "?name=", "?name=%20%20", `?name=${"M".repeat(101)}`]) {
      const problem = await expectProblem(await server.request(`/targets/resolve${query}`, { token: account.token }), 400, "VALIDATION_FAILED");
      expect(problem.errors).toEqual([{ path: "name", message: expect.stringMatching(/^Name /) }]);
      await expectProblem(await server.request(`/targets/resolve${query}`), 401, "UNAUTHENTICATED");
    }
    expect((await resolve(`M31${" ".repeat(50)}`)).designation).toBe("M31");
  });
});

describe("GET /targets/search", () => {
  it("puts the exact name first, then names that start with the query, then later words", async () => {
    const m1 = await search("m1");
    expect(m1.slice(0, 5).map((item) => item.name)).toEqual(["M1", "M10", "M11", "M12", "M13"]);
    const orion = await search("orion");
    expect(orion[0]).toMatchObject({ name: "Orion Nebula", designation: "M42" });
    // "Orion B" starts with the query; "Great Orion Nebula" only has a later word that does, and M42 is listed once.
    expect(orion.filter((item) => item.designation === "M42")).toHaveLength(1);
    expect(orion.map((item) => item.name)).toContain("Orion B");
    const ring = await search("ring neb");
    expect(ring[0]).toMatchObject({ name: "Ring Nebula", designation: "M57" });
    const nebula = await search("nebula");
    expect(nebula.slice(0, 3).map((item) => item.designation)).toEqual(["M1", "M8", "M16"]);
  });

  it("ranks Messier before NGC before IC when matches are otherwise equal", async () => {
    const found = await search("ngc 19");
    expect(found[0]).toMatchObject({ name: "NGC 19", catalog: "NGC" });
    const rest = found.slice(1).map((item) => item.catalog);
    expect(rest.lastIndexOf("Messier")).toBeLessThan(rest.indexOf("NGC"));
    expect(found.slice(1, 4).map((item) => item.name)).toEqual(["NGC 1904", "NGC 1912", "NGC 1952"]);
    const number = await search("1976");
    expect(number.map((item) => item.designation).slice(0, 2)).toEqual(["M42", "IC 1976"]);
  });

  it("gives at most 20 items, each object once", async () => {
    for (const q of ["n", "ngc 1", "a", "alpha"]) {
      const items = await search(q);
      expect(items, q).toHaveLength(20);
      expect(new Set(items.map((item) => item.designation)).size, q).toBe(20);
    }
    expect(await search("zzzzqq")).toEqual([]);
    expect(await search("?!")).toEqual([]);
  });

  it("refuses a missing or overlong query with 400, and looks at nothing without credentials", async () => {
    for (const query of ["", "?q=", `?q=${"a".repeat(101)}`]) {
      const problem = await expectProblem(await server.request(`/targets/search${query}`, { token: account.token }), 400, "VALIDATION_FAILED");
      expect(problem.errors).toEqual([{ path: "q", message: expect.stringMatching(/^Q /) }]);
      await expectProblem(await server.request(`/targets/search${query}`), 401, "UNAUTHENTICATED");
    }
  });
});

describe("the tRPC face", () => {
  const query = (procedure: string, input: unknown, token?: string) =>
    server.request(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });

  it("resolves and searches as REST does", async () => {
    const resolved = await query("targets.resolve", { name: "NGC 1976" }, account.token);
    expect(resolved.status).toBe(200);
    expect(((await resolved.json()) as { result: { data: TargetMatch } }).result.data).toEqual(await resolve("NGC 1976"));
    const searched = await query("targets.search", { q: "orion" }, account.token);
    expect(((await searched.json()) as { result: { data: { items: TargetMatch[] } } }).result.data.items).toEqual(await search("orion"));
  });

  it("says TARGET_NOT_FOUND and UNAUTHENTICATED with the same codes", async () => {
    const missing = await query("targets.resolve", { name: "Planet X" }, account.token);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { data: { code: string } } }).error.data.code).toBe("TARGET_NOT_FOUND");
    const anonymous = await query("targets.search", { q: "x".repeat(500) });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { data: { code: string } } }).error.data.code).toBe("UNAUTHENTICATED");
  });
});
