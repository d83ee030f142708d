import { describe, expect, it } from "vitest";
import { fixedTimeProblems, observationDraftProblems, observationDraftSchema, targetSchema } from "./observation-fields";

const exposure = { filter: "L", exposureSeconds: 60, count: 1, binning: 1 };
const target = { name: "M31", ra: 10.6847, dec: 41.269, exposures: [exposure] };
const draft = (fields: Record<string, unknown> = {}) => ({
  name: "Andromeda",
  type: "flexible",
  priority: 5,
  targets: [target],
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: null,
  ...fields,
});
const withTarget = (fields: Record<string, unknown>) => draft({ targets: [{ ...target, ...fields }] });
const withExposure = (fields: Record<string, unknown>) => withTarget({ exposures: [{ ...exposure, ...fields }] });

describe("observationDraftProblems: each field as the API words it", () => {
  it("finds nothing wrong with a complete draft", () => {
    expect(observationDraftProblems(draft())).toEqual({});
    expect(observationDraftSchema.safeParse(draft()).success).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ["an empty name", draft({ name: "  " }), "name", "Name must not be empty."],
    ["a name over 200 characters", draft({ name: "x".repeat(201) }), "name", "Name must have at most 200 characters."],
    ["a name with a control character", draft({ name: "a\u0007b" }), "name", "Name must not contain control characters."],
    ["priority 11", draft({ priority: 11 }), "priority", "Priority must be at most 10."],
    ["priority 0", draft({ priority: 0 }), "priority", "Priority must be at least 1."],
    ["priority 2.5", draft({ priority: 2.5 }), "priority", "Priority must be a whole number."],
    ["no priority", draft({ priority: undefined }), "priority", "Priority is required."],
    ["an unknown type", draft({ type: "whenever" }), "type", "Type must be one of “flexible”, “fixed_time”, “time_based”, “monitoring” or “rise_to_set”."],
    ["no target", draft({ targets: [] }), "targets", "Targets must have at least one item."],
    ["RA of 360", withTarget({ ra: 360 }), "targets.0.ra", "RA (target 1) must be less than 360."],
    ["a negative RA", withTarget({ ra: -0.1 }), "targets.0.ra", "RA (target 1) must be at least 0."],
    ["Dec beyond 90", withTarget({ dec: 90.5 }), "targets.0.dec", "Dec (target 1) must be at most 90."],
    ["an empty target name", withTarget({ name: "" }), "targets.0.name", "Name (target 1) must not be empty."],
    ["a target without exposures", withTarget({ exposures: [] }), "targets.0.exposures", "Exposures (target 1) must have at least one item."],
    [
      "a zero-second exposure",
      withExposure({ exposureSeconds: 0 }),
      "targets.0.exposures.0.exposureSeconds",
      "Exposure seconds (exposure 1) must be greater than 0.",
    ],
    [
      "seconds given as text",
      withExposure({ exposureSeconds: "ten" }),
      "targets.0.exposures.0.exposureSeconds",
      "Exposure seconds (exposure 1) must be a number.",
    ],
    ["a count of 1.5", withExposure({ count: 1.5 }), "targets.0.exposures.0.count", "Count (exposure 1) must be a whole number."],
    ["binning 5", withExposure({ binning: 5 }), "targets.0.exposures.0.binning", "Binning (exposure 1) must be at most 4."],
    ["an empty filter", withExposure({ filter: "" }), "targets.0.exposures.0.filter", "Filter (exposure 1) must not be empty."],
    ["a target name with NUL", withTarget({ name: "a\u0000b" }), "targets.0.name", "Name (target 1) must not contain control characters."],
    ["a target name with a lone surrogate", withTarget({ name: "a\ud800b" }), "targets.0.name", "Name (target 1) must not contain control characters."],
    ["an epoch with a control character", withTarget({ epoch: "J2000\u0007" }), "targets.0.epoch", "Epoch (target 1) must not contain control characters."],
    [
      "a filter with a lone surrogate",
      withExposure({ filter: "\udfffL" }),
      "targets.0.exposures.0.filter",
      "Filter (exposure 1) must not contain control characters.",
    ],
    [
      "an unknown twilight",
      draft({ constraints: { twilight: "golden" } }),
      "constraints.twilight",
      "Twilight must be one of “civil”, “nautical” or “astronomical”.",
    ],
    ["a minimum altitude of 91", draft({ constraints: { minAltitude: 91 } }), "constraints.minAltitude", "Min altitude must be at most 90."],
    ["an airmass below 1", draft({ constraints: { maxAirmass: 0.5 } }), "constraints.maxAirmass", "Max airmass must be at least 1."],
    ["a Moon distance of 181", draft({ constraints: { moonDistance: 181 } }), "constraints.moonDistance", "Moon distance must be at most 180."],
    [
      "a start that is not a time",
      draft({ fixedTimeStart: "tomorrow" }),
      "fixedTimeStart",
      "Window start must be a date and time such as 2026-01-31T20:00:00Z.",
    ],
    [
      "an end before the start",
      draft({ type: "fixed_time", fixedTimeStart: "2026-12-01T02:00:00.000Z", fixedTimeEnd: "2026-12-01T01:00:00.000Z" }),
      "fixedTimeEnd",
      "Window end must be after the window start.",
    ],
  ])("refuses %s", (_what, value, path, message) => {
    expect(observationDraftProblems(value)[path]).toBe(message);
  });

  it("names the target and the exposure a problem belongs to", () => {
    const problems = observationDraftProblems(
      draft({ targets: [target, { ...target, exposures: [exposure, { ...exposure, count: 0 }] }, { ...target, dec: -91 }] }),
    );
    expect(problems).toEqual({
      "targets.1.exposures.1.count": "Count (exposure 2) must be at least 1.",
      "targets.2.dec": "Dec (target 3) must be at least -90.",
    });
  });

  it("checks the window even while other fields are wrong", () => {
    const problems = observationDraftProblems(draft({ name: "", type: "fixed_time" }));
    expect(problems).toEqual({
      name: "Name must not be empty.",
      fixedTimeStart: "Window start is required for a fixed-time observation.",
    });
  });
});

describe("fixedTimeProblems", () => {
  const start = "2026-12-01T01:00:00.000Z";
  const later = "2026-12-01T02:00:00.000Z";

  it("wants the end after the start", () => {
    expect(fixedTimeProblems({ fixedTimeStart: later, fixedTimeEnd: start })).toEqual([
      { path: ["fixedTimeEnd"], predicate: "must be after the window start" },
    ]);
    expect(fixedTimeProblems({ fixedTimeStart: start, fixedTimeEnd: start })).toHaveLength(1);
    expect(fixedTimeProblems({ fixedTimeStart: start, fixedTimeEnd: later })).toEqual([]);
    // Times in other zones compare as moments, not as text.
    expect(fixedTimeProblems({ fixedTimeStart: "2026-12-01T03:00:00+02:00", fixedTimeEnd: "2026-12-01T01:30:00.000Z" })).toEqual([]);
  });

  it("wants a fixed-time observation's start, and nothing of the other types", () => {
    expect(fixedTimeProblems({ type: "fixed_time", fixedTimeStart: null, fixedTimeEnd: null })).toEqual([
      { path: ["fixedTimeStart"], predicate: "is required for a fixed-time observation" },
    ]);
    expect(fixedTimeProblems({ type: "fixed_time", fixedTimeStart: start })).toEqual([]);
    for (const type of ["flexible", "time_based", "monitoring", "rise_to_set"]) expect(fixedTimeProblems({ type })).toEqual([]);
    for (const type of ["flexible", "monitoring", "rise_to_set"]) expect(fixedTimeProblems({ type, fixedTimeStart: null, fixedTimeEnd: null })).toEqual([]);
  });

  it("wants a time-based observation's start, end or both, but does not call bounds a partial update leaves out missing", () => {
    expect(fixedTimeProblems({ type: "time_based", fixedTimeStart: null, fixedTimeEnd: null })).toEqual([
      { path: ["fixedTimeStart"], predicate: "A time-based observation needs a window start, a window end or both." },
    ]);
    expect(fixedTimeProblems({ type: "time_based", fixedTimeStart: start, fixedTimeEnd: null })).toEqual([]);
    expect(fixedTimeProblems({ type: "time_based", fixedTimeStart: null, fixedTimeEnd: later })).toEqual([]);
    expect(fixedTimeProblems({ type: "time_based", fixedTimeEnd: null })).toEqual([]);
    expect(observationDraftProblems(draft({ type: "time_based", fixedTimeStart: null, fixedTimeEnd: null })).fixedTimeStart).toBe(
      "A time-based observation needs a window start, a window end or both.",
    );
  });
});

describe("targetSchema", () => {
  it("takes J2000 when no epoch is given", () => {
    expect(targetSchema.parse(target).epoch).toBe("J2000");
  });

  it("takes at most 50 exposures", () => {
    expect(targetSchema.safeParse({ ...target, exposures: Array.from({ length: 50 }, () => exposure) }).success).toBe(true);
    expect(targetSchema.safeParse({ ...target, exposures: Array.from({ length: 51 }, () => exposure) }).success).toBe(false);
  });
});
