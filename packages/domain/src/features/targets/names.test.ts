import { describe, expect, it } from "vitest";
import { nameKey, spellGreek, wordKeys } from "./names";

describe("name keys", () => {
  it.each([
    [["M31", "m 31", "Messier 31", "M031", "messier031", " M  31 "], "m31"],
    [["NGC 224", "NGC0224", "ngc224", "N.G.C. 224", "ngc 0224"], "ngc224"],
    [["IC 434", "IC0434", "ic-434"], "ic434"],
    [["Andromeda Galaxy", "andromeda galaxy", "ANDROMEDA  GALAXY", "Andromeda-Galaxy"], "andromedagalaxy"],
    [["Barnard's Merope Nebula", "Barnards Merope Nebula"], "barnardsmeropenebula"],
    [["α Lyr", "alpha lyr", "Alpha Lyr"], "alphalyr"],
    [["ESO 056-015", "ESO 56-15", "ESO056-015"], "eso5615"],
    [["Lusitânia", "lusitania"], "lusitania"],
  ])("%j all read as %s", (spellings, key) => {
    for (const spelling of spellings) expect(nameKey(spelling), spelling).toBe(key);
  });

  it("keeps numbers apart from what follows them", () => {
    expect(nameKey("NGC 7000")).toBe("ngc7000");
    expect(nameKey("M 100")).toBe("m100");
    expect(nameKey("58 Ori")).toBe("58ori");
    expect(nameKey("Messier")).toBe("messier");
  });

  it("spells Greek letters out", () => {
    expect(spellGreek("α1 Cen")).toBe("alpha1 Cen");
    expect(spellGreek("ο Cet")).toBe("omicron Cet");
  });

  it("finds where each later word begins", () => {
    expect(wordKeys("Great Orion Nebula")).toEqual(["orionnebula", "nebula"]);
    expect(wordKeys("NGC 1976")).toEqual(["1976"]);
    expect(wordKeys("M42")).toEqual(["42"]);
    expect(wordKeys("Vega")).toEqual([]);
    expect(wordKeys("h & chi Persei")).toEqual(["chipersei", "persei"]);
  });
});
