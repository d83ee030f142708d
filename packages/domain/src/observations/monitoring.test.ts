import { describe, expect, it } from "vitest";
import { monitoringBlock, monitoringRunEnded } from "./monitoring";

const at = (iso: string) => new Date(iso);
const cadence = (fields: { intervalMinutes?: number; until?: string | null; maxRuns?: number | null } = {}) => ({
  intervalMinutes: 60,
  until: null,
  maxRuns: null,
  ...fields,
});

describe("monitoringBlock: a monitoring observation waits its interval after each run", () => {
  it("does not hold one without a cadence, nor the first run of one with a cadence", () => {
    expect(monitoringBlock({ doc: {}, now: at("2026-11-23T22:00:00Z") })).toBeNull();
    expect(monitoringBlock({ doc: { monitoring: cadence() }, now: at("2026-11-23T22:00:00Z") })).toBeNull();
  });

  it("holds it BEFORE_WINDOW until its last end plus the interval, then lets it go", () => {
    const doc = { monitoring: cadence({ intervalMinutes: 90 }), monitoringRuns: { count: 1, lastEndedAt: "2026-11-23T22:00:00.000Z" } };
    expect(monitoringBlock({ doc, now: at("2026-11-23T23:29:59Z") })).toEqual({ code: "BEFORE_WINDOW", until: at("2026-11-23T23:30:00Z") });
    expect(monitoringBlock({ doc, now: at("2026-11-23T23:30:00Z") })).toBeNull();
  });

  it("holds it AFTER_WINDOW for good once until has passed", () => {
    const doc = { monitoring: cadence({ until: "2026-11-24T00:00:00.000Z" }) };
    expect(monitoringBlock({ doc, now: at("2026-11-23T23:59:00Z") })).toBeNull();
    expect(monitoringBlock({ doc, now: at("2026-11-24T00:00:01Z") })).toEqual({ code: "AFTER_WINDOW", until: null });
  });
});

describe("monitoringRunEnded: counts runs and says when the series is over", () => {
  it("repeats for ever without maxRuns or until, counting each run", () => {
    const first = monitoringRunEnded({ doc: { monitoring: cadence() }, endedAt: at("2026-11-23T22:00:00Z") });
    expect(first).toEqual({ runs: { count: 1, lastEndedAt: "2026-11-23T22:00:00.000Z" }, repeats: true, ending: null });
    const second = monitoringRunEnded({ doc: { monitoring: cadence(), monitoringRuns: first.runs }, endedAt: at("2026-11-23T23:00:00Z") });
    expect(second).toMatchObject({ runs: { count: 2 }, repeats: true });
    // Observations from before cadences existed count their runs too.
    expect(monitoringRunEnded({ doc: {}, endedAt: at("2026-11-23T22:00:00Z") })).toMatchObject({ runs: { count: 1 }, repeats: true });
  });

  it("ends after maxRuns runs", () => {
    const doc = { monitoring: cadence({ maxRuns: 3 }), monitoringRuns: { count: 1, lastEndedAt: "2026-11-23T21:00:00.000Z" } };
    expect(monitoringRunEnded({ doc, endedAt: at("2026-11-23T22:00:00Z") })).toMatchObject({ runs: { count: 2 }, repeats: true });
    const last = monitoringRunEnded({
      doc: { ...doc, monitoringRuns: { count: 2, lastEndedAt: "2026-11-23T22:00:00.000Z" } },
      endedAt: at("2026-11-23T23:00:00Z"),
    });
    expect(last).toEqual({ runs: { count: 3, lastEndedAt: "2026-11-23T23:00:00.000Z" }, repeats: false, ending: "monitoring ended after 3 of 3 runs" });
  });

  it("ends when the next run could only start after until", () => {
    const doc = { monitoring: cadence({ intervalMinutes: 60, until: "2026-11-24T00:00:00.000Z" }) };
    expect(monitoringRunEnded({ doc, endedAt: at("2026-11-23T23:00:00Z") }).repeats).toBe(true);
    expect(monitoringRunEnded({ doc, endedAt: at("2026-11-23T23:00:01Z") })).toMatchObject({
      repeats: false,
      ending: "monitoring ended: no run can start before its end (2026-11-24T00:00:00.000Z)",
    });
  });
});
