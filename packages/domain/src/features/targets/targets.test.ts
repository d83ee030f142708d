import { describe, expect, it } from "vitest";
import { AppError } from "../../platform/errors";
import { resolveTarget, searchTargets } from "./targets";

const namesFound = (q: string) => searchTargets({ q }).items.map((item) => item.name);

describe("resolving a target by name", () => {
  it.each([
    ["M31", "M31", "M31"],
    ["m 31", "M31", "M31"],
    ["Messier 31", "M31", "M31"],
    ["NGC 224", "NGC 224", "M31"],
    ["NGC0224", "NGC 224", "M31"],
    ["ngc224", "NGC 224", "M31"],
    ["Andromeda Galaxy", "Andromeda Galaxy", "M31"],
    ["IC 434", "IC 434", "IC 434"],
    ["Orion Nebula", "Orion Nebula", "M42"],
    ["Pleiades", "Pleiades", "M45"],
    ["ring nebula", "Ring Nebula", "M57"],
    ["M102", "M102", "M101"],
    ["Vega", "Vega", "Vega"],
    ["betelgeuse", "Betelgeuse", "Betelgeuse"],
    ["alpha lyr", "α Lyr", "Vega"],
    ["Alpha Centauri", "Alpha Centauri", "Rigil Kentaurus"],
  ])("%s is %s, designated %s", (typed, name, designation) => {
    const match = resolveTarget({ name: typed });
    expect(match.name).toBe(name);
    expect(match.designation).toBe(designation);
    expect(match.epoch).toBe("J2000");
  });

  it("gives every name of an object the same position", () => {
    const positions = ["M42", "m 42", "NGC 1976", "Orion Nebula", "Great Orion Nebula"].map((name) => {
      const { ra, dec } = resolveTarget({ name });
      return [ra, dec];
    });
    for (const position of positions) expect(position).toEqual(positions[0]);
  });

  it("says TARGET_NOT_FOUND for a name it does not know", () => {
    for (const name of ["Planet X", "M 111", "NGC 99999", "---"]) {
      expect(() => resolveTarget({ name })).toThrow(AppError);
      try {
        resolveTarget({ name });
      } catch (error) {
        expect((error as AppError).code).toBe("TARGET_NOT_FOUND");
      }
    }
  });

  it("knows the kind of each object", () => {
    expect(resolveTarget({ name: "M13" }).kind).toBe("globular_cluster");
    expect(resolveTarget({ name: "M45" }).kind).toBe("open_cluster");
    expect(resolveTarget({ name: "M57" }).kind).toBe("planetary_nebula");
    expect(resolveTarget({ name: "M51" }).kind).toBe("galaxy");
    expect(resolveTarget({ name: "Sirius" }).kind).toBe("star");
  });
});

describe("searching targets", () => {
  it("puts the exact name first, then names that start with the query, then later words", () => {
    expect(namesFound("M1").slice(0, 4)).toEqual(["M1", "M10", "M11", "M12"]);
    const orion = namesFound("orion");
    expect(orion[0]).toBe("Orion Nebula");
    expect(orion.indexOf("Orion B")).toBeLessThan(orion.findIndex((name) => name.endsWith("Orionis")));
    const nebula = namesFound("nebula");
    expect(nebula[0]).toBe("Crab Nebula"); // no name is or starts with "nebula": later words, Messier first
  });

  it("ranks Messier before NGC before IC when matches are otherwise equal", () => {
    const found = searchTargets({ q: "ngc 19" }).items;
    expect(found[0]!.name).toBe("NGC 19");
    const catalogs = found.slice(1).map((item) => item.catalog);
    expect(catalogs.indexOf("NGC")).toBeGreaterThan(catalogs.lastIndexOf("Messier"));
    const bare = searchTargets({ q: "1976" }).items.map((item) => item.designation);
    expect(bare.indexOf("M42")).toBeLessThan(bare.indexOf("IC 1976"));
  });

  it("lists each object once, under its best name", () => {
    const found = searchTargets({ q: "orion" }).items;
    expect(new Set(found.map((item) => item.designation)).size).toBe(found.length);
    expect(found.filter((item) => item.designation === "M42").map((item) => item.name)).toEqual(["Orion Nebula"]);
  });

  it("gives at most 20", () => {
    expect(searchTargets({ q: "n" }).items).toHaveLength(20);
    expect(searchTargets({ q: "ngc 1" }).items).toHaveLength(20);
    expect(searchTargets({ q: "zzzz" }).items).toEqual([]);
    expect(searchTargets({ q: "!!" }).items).toEqual([]);
  });
});
