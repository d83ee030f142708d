import { describe, expect, it } from "vitest";
import { refuseUnavailableFilters } from "./filter-check";

const targets = (...filters: string[][]) => filters.map((names) => ({ exposures: names.map((filter) => ({ filter })) }));
const north = { id: "oby_north", name: "North", filters: ["L", "R", "G", "B"] };
const south = { id: "oby_south", name: "South", filters: ["Ha", "OIII"] };
const east = { id: "oby_east", name: "East", filters: ["L"] };

/** The refusal thrown, or null when the observation is taken. */
function refusal(options: Parameters<typeof refuseUnavailableFilters>[0]) {
  try {
    refuseUnavailableFilters(options);
    return null;
  } catch (error) {
    return error as { code: string; status: number; message: string; errors: Array<{ path: string; message: string }> };
  }
}

describe("FILTER_NOT_AVAILABLE over the observatories an observation may run at", () => {
  it("with one observatory, refuses each exposure whose filter it lacks, naming it and what it has", () => {
    expect(refusal({ targets: targets(["L", "Ha"]), observatories: [north] })).toMatchObject({
      code: "FILTER_NOT_AVAILABLE",
      status: 400,
      message: "North has no “Ha” filter; it reports L, R, G, B",
      errors: [{ path: "targets.0.exposures.1.filter", message: "North has no “Ha” filter: choose one of L, R, G, B." }],
    });
    expect(refusal({ targets: targets(["l", "b"]), observatories: [north] })).toBeNull();
    // A filter asked for in two cases is named once in the detail, each exposure still refused at its field.
    expect(refusal({ targets: targets(["Ha"], ["ha"]), observatories: [north] })).toMatchObject({
      message: "North has no “Ha” filter; it reports L, R, G, B",
      errors: [{ path: "targets.0.exposures.0.filter" }, { path: "targets.1.exposures.0.filter" }],
    });
  });

  it("with a list, takes it when one of them has every filter, and refuses it when none has, naming who lacks each", () => {
    expect(refusal({ targets: targets(["Ha"], ["OIII"]), observatories: [north, south] })).toBeNull();
    expect(refusal({ targets: targets(["L", "Ha"]), observatories: [north, south, east] })).toMatchObject({
      code: "FILTER_NOT_AVAILABLE",
      message: "None of the observatories this observation may run at has every filter it asks for",
      errors: [
        { path: "targets.0.exposures.0.filter", message: "“L” is not among the filters of South." },
        { path: "targets.0.exposures.1.filter", message: "“Ha” is not among the filters of North or East." },
      ],
    });
    // One that never reported filters takes any.
    expect(refusal({ targets: targets(["V"]), observatories: [north, { id: "oby_quiet", name: "Quiet", filters: null }] })).toBeNull();
  });
});
