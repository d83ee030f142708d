import { describe, expect, it } from "vitest";
import { filtersAskedBy, filtersLacking, hasEveryFilter, reportedFilters, unavailableFilters, type ObservatoryFilters } from "./filters";

const targets = (...filters: string[][]) => filters.map((names) => ({ exposures: names.map((filter) => ({ filter })) }));
const observatory = (name: string, filters: string[] | null): ObservatoryFilters => ({ id: `oby_${name}`, name, filters });

describe("filters an observatory reports and an observation asks for", () => {
  it("compare case-insensitively; an observatory that reported none has every filter", () => {
    expect(hasEveryFilter(["L", "R", "G", "B", "Ha"], ["ha", "l"])).toBe(true);
    expect(hasEveryFilter(["L", "R", "G", "B"], ["L", "Ha"])).toBe(false);
    expect(filtersLacking(["L", "R", "G", "B"], ["Ha", "L", "HA", "OIII"])).toEqual(["Ha", "OIII"]);
    expect(hasEveryFilter(null, ["Ha"])).toBe(true);
    expect(filtersAskedBy(targets(["L", "Ha"], ["ha", "OIII"]))).toEqual(["L", "Ha", "OIII"]);
  });

  it("reads a stored report's filters, and anything else there as none", () => {
    expect(reportedFilters({ camera: "A", filters: ["L", "Ha"] })).toEqual(["L", "Ha"]);
    for (const equipment of [undefined, null, "L", { camera: "A" }, { filters: [] }, { filters: [{ name: "L" }] }, { filters: "L,R" }])
      expect(reportedFilters(equipment)).toBeNull();
  });
});

describe("the submission rule over the observatories an observation may run at", () => {
  const lrgb = observatory("North", ["L", "R", "G", "B"]);
  const narrowband = observatory("South", ["Ha", "OIII", "SII"]);

  it("refuses each exposure whose filter its only observatory lacks, naming it", () => {
    expect(unavailableFilters({ targets: targets(["L", "Ha"], ["r"]), observatories: [lrgb] })).toEqual([
      { path: "targets.0.exposures.1.filter", filter: "Ha", lackedBy: [lrgb] },
    ]);
    expect(unavailableFilters({ targets: targets(["l", "G"]), observatories: [lrgb] })).toEqual([]);
    expect(unavailableFilters({ targets: targets(["Ha"]), observatories: [observatory("Silent", null)] })).toEqual([]);
  });

  it("takes an observation when one of its observatories has every filter, and refuses it when none has", () => {
    expect(unavailableFilters({ targets: targets(["Ha"]), observatories: [lrgb, narrowband] })).toEqual([]);
    expect(unavailableFilters({ targets: targets(["L"], ["Ha"]), observatories: [lrgb, narrowband, observatory("Silent", null)] })).toEqual([]);
    // Each filter is somewhere, but no one observatory has both: every exposure in the way, with who lacks it.
    expect(unavailableFilters({ targets: targets(["L"], ["Ha"]), observatories: [lrgb, narrowband] })).toEqual([
      { path: "targets.0.exposures.0.filter", filter: "L", lackedBy: [narrowband] },
      { path: "targets.1.exposures.0.filter", filter: "Ha", lackedBy: [lrgb] },
    ]);
    expect(unavailableFilters({ targets: targets(["V"]), observatories: [] })).toEqual([]);
  });
});
