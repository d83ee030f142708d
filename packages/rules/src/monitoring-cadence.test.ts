import { describe, expect, it } from "vitest";
import { observationDraftProblems } from "./observation-fields";

const draft = (fields: Record<string, unknown> = {}) => ({
  name: "Variable star",
  type: "monitoring",
  priority: 5,
  targets: [{ name: "Algol", ra: 47.04, dec: 40.96, exposures: [{ filter: "V", exposureSeconds: 30, count: 1, binning: 1 }] }],
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: null,
  ...fields,
});

describe("a monitoring cadence, as the wizard and the API check it", () => {
  it("takes an interval alone, or with until and maxRuns", () => {
    expect(observationDraftProblems(draft({ monitoring: { intervalMinutes: 60 } }))).toEqual({});
    expect(observationDraftProblems(draft({ monitoring: { intervalMinutes: 1, until: "2030-01-01T00:00:00Z", maxRuns: 5 } }))).toEqual({});
    expect(observationDraftProblems(draft({ monitoring: null }))).toEqual({});
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ["an interval under a minute", { intervalMinutes: 0 }, "monitoring.intervalMinutes", "Interval minutes must be at least 1."],
    ["a fractional interval", { intervalMinutes: 1.5 }, "monitoring.intervalMinutes", "Interval minutes must be a whole number."],
    ["no interval", {}, "monitoring.intervalMinutes", "Interval minutes is required."],
    ["no runs", { intervalMinutes: 5, maxRuns: 0 }, "monitoring.maxRuns", "Max runs must be at least 1."],
    ["an end that is not a time", { intervalMinutes: 5, until: "tomorrow" }, "monitoring.until", "Until must be a date and time such as 2026-01-31T20:00:00Z."],
  ])("refuses %s", (_, monitoring, path, message) => {
    expect(observationDraftProblems(draft({ monitoring }))).toEqual({ [path]: message });
  });

  it("belongs to monitoring observations only", () => {
    expect(observationDraftProblems(draft({ type: "flexible", monitoring: { intervalMinutes: 60 } }))).toEqual({
      monitoring: "Monitoring is only for a monitoring observation (type monitoring).",
    });
  });
});
