import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { buildCatalog, catalogText, naturalCompare, readCatalogSources } from "./catalog-builder";
import { catalogFileSchema } from "./catalog-format";
import { nameKey } from "./names";

const committed = fs.readFileSync(new URL("./catalog.json", import.meta.url), "utf8");

describe("the committed target catalog", () => {
  it("is exactly what `pnpm --filter @meridian/domain build:catalog` makes from the pinned sources", () => {
    // A hand edit, or a source upgrade without a rebuild, shows up here as a difference.
    expect(catalogText(buildCatalog(readCatalogSources()).file)).toBe(committed);
  });

  const file = catalogFileSchema.parse(JSON.parse(committed));

  it("stays small and names its sources and their licences", () => {
    expect(Buffer.byteLength(committed)).toBeLessThan(3 * 1024 * 1024);
    expect(file.sources.map((source) => [source.package, source.licence])).toEqual([
      ["astronomy-oracle@0.1.1", "CC-BY-SA-4.0"],
      ["d3-celestial@0.7.35", "BSD-3-Clause"],
    ]);
    expect(fs.existsSync(new URL("./CATALOG-LICENSE.md", import.meta.url))).toBe(true);
  });

  it("gives every name to one object only", () => {
    const owners = new Map<string, string>();
    const shared: string[] = [];
    for (const [designation, , , , , aliases] of file.objects) {
      for (const name of [designation, ...aliases]) {
        const owner = owners.get(nameKey(name));
        if (owner !== undefined && owner !== designation) shared.push(`${name} names both ${owner} and ${designation}`);
        owners.set(nameKey(name), designation);
      }
    }
    expect(shared).toEqual([]);
  });

  it("holds every Messier number, the NGC and IC catalogs and the IAU-named stars", () => {
    const names = new Set(file.objects.flatMap(([designation, , , , , aliases]) => [designation, ...aliases].map(nameKey)));
    for (let number = 1; number <= 110; number += 1) expect(names.has(`m${number}`), `M${number}`).toBe(true);
    const count = (catalog: string) => file.objects.filter((entry) => entry[1] === catalog).length;
    expect(count("Messier")).toBe(109); // M102 is M101 in OpenNGC, so it is an alias
    expect(count("NGC")).toBeGreaterThan(7000);
    expect(count("IC")).toBeGreaterThan(5000);
    expect(count("IAU")).toBeGreaterThan(550);
    for (const star of ["Sirius", "Vega", "Betelgeuse", "Polaris", "Rigil Kentaurus", "Albireo", "Mizar", "Alcor"]) {
      expect(names.has(nameKey(star)), star).toBe(true);
    }
  });

  it("lists objects in catalog order, numbers in numeric order", () => {
    expect(file.objects.slice(0, 3).map((entry) => entry[0])).toEqual(["M1", "M2", "M3"]);
    const ngc = file.objects.filter((entry) => entry[1] === "NGC").map((entry) => entry[0]);
    expect([...ngc].sort((a, b) => naturalCompare({ a, b }))).toEqual(ngc);
    expect(ngc.indexOf("NGC 225")).toBeLessThan(ngc.indexOf("NGC 1977"));
  });
});
