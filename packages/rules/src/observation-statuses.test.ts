import { describe, expect, it } from "vitest";
import { canMove, compareVersions, isFinalStatus, observationStatuses, observationTransitions, type ObservationStatus } from "./observation-statuses";

/** The allowed moves of docs/api-contract.md, written out again by hand so the table cannot drift from it unnoticed. */
const allowed: Record<ObservationStatus, ObservationStatus[]> = {
  pending: ["assigned", "paused", "cancelled"],
  paused: ["pending", "cancelled"],
  assigned: ["in_progress", "pending", "failed", "aborted", "cancelled"],
  in_progress: ["acquisition_complete", "suspended", "failed", "aborted", "cancelled"],
  suspended: ["in_progress", "acquisition_complete", "partially_completed", "failed", "aborted", "cancelled"],
  acquisition_complete: ["completed", "partially_completed", "failed"],
  completed: [],
  failed: [],
  cancelled: [],
  aborted: [],
  partially_completed: [],
};

describe("the observation transition table", () => {
  it("has the spec's eleven statuses", () => {
    expect([...observationStatuses].sort()).toEqual(Object.keys(allowed).sort());
    expect(observationStatuses).toHaveLength(11);
  });

  for (const from of observationStatuses)
    for (const to of observationStatuses) {
      const expected = allowed[from].includes(to);
      it(`${expected ? "allows" : "refuses"} ${from} → ${to}`, () => expect(canMove(from, to)).toBe(expected));
    }

  it("ends at completed, failed, cancelled, aborted and partially_completed", () => {
    expect(observationStatuses.filter(isFinalStatus).sort()).toEqual(["aborted", "cancelled", "completed", "failed", "partially_completed"]);
    expect(Object.values(observationTransitions).flat().length).toBe(Object.values(allowed).flat().length);
  });
});

describe("plugin versions", () => {
  it("compare numerically part by part", () => {
    expect(compareVersions("3.10.0.0", "3.8.0.0")).toBe(1);
    expect(compareVersions("3.8.0.0", "3.10.0.0")).toBe(-1);
    expect(compareVersions("3.8", "3.8.0.0")).toBe(0);
    expect(compareVersions("3.8.0.1", "3.8.0.0")).toBe(1);
    expect(compareVersions("2.99.99.99", "3.0.0.0")).toBe(-1);
  });
});
