import { describe, expect, it } from "vitest";
import type { ObservationDoc } from "@meridian/db";
import { monitoringRunEnded } from "./monitoring";
import { planQueue } from "@meridian/scheduler";

const at = (iso: string) => new Date(iso);
const baseDoc = {
  name: "Variable star",
  projectId: "prj_1",
  observatoryId: "obs_1",
  ownerId: "usr_1",
  type: "monitoring",
  priority: 5,
  targets: [{ name: "T", ra: 10, dec: 10, epoch: "J2000", exposures: [{ filter: "V", exposureSeconds: 60, count: 1, binning: 1 }] }],
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
  fixedTimeStart: null,
  fixedTimeEnd: null,
  bypassDarkness: false,
  notifications: { email: true, push: true, states: [] },
  status: "pending",
  statusReason: null,
  statusChangedAt: "2026-11-23T00:00:00.000Z",
  isMonitoring: true,
  staleReportedAt: null,
};
const cadence = (fields: { intervalMinutes?: number; until?: string | null; maxRuns?: number | null } = {}) => ({
  intervalMinutes: 60,
  until: null,
  maxRuns: null,
  ...fields,
});

/** The queue's verdict on a monitoring observation at an observatory without a location (only its windows apply), with when it ends. */
const queued = (doc: Record<string, unknown>, now: Date) => {
  const observation = { id: "obn_1", createdAt: now, updatedAt: now, doc: { ...baseDoc, ...doc } as unknown as ObservationDoc };
  const state = { location: null, online: true, dispatchEnabled: true, pluginCurrent: true, safe: true, busy: false };
  return planQueue({ state, pending: [observation], now, explain: true }).items[0]!.blockedBy;
};

describe("the monitoring window: a monitoring observation waits its interval after each run", () => {
  it("does not hold one without a cadence, nor the first run of one with a cadence", () => {
    expect(queued({}, at("2026-11-23T22:00:00Z"))).toBeNull();
    expect(queued({ monitoring: cadence() }, at("2026-11-23T22:00:00Z"))).toBeNull();
  });

  it("holds it BEFORE_WINDOW until its last end plus the interval, then lets it go", () => {
    const doc = { monitoring: cadence({ intervalMinutes: 90 }), monitoringRuns: { count: 1, lastEndedAt: "2026-11-23T22:00:00.000Z" } };
    expect(queued(doc, at("2026-11-23T23:29:59Z"))).toEqual({ code: "BEFORE_WINDOW", until: at("2026-11-23T23:30:00Z") });
    expect(queued(doc, at("2026-11-23T23:30:00Z"))).toBeNull();
  });

  it("holds it AFTER_WINDOW for good once until has passed", () => {
    const doc = { monitoring: cadence({ until: "2026-11-24T00:00:00.000Z" }) };
    expect(queued(doc, at("2026-11-23T23:59:00Z"))).toBeNull();
    expect(queued(doc, at("2026-11-24T00:00:01Z"))).toEqual({ code: "AFTER_WINDOW", until: null });
  });

  it("takes the later of a fixed start and the interval, and the earlier of a fixed end and until", () => {
    const doc = {
      fixedTimeStart: "2026-11-24T01:00:00.000Z",
      fixedTimeEnd: "2026-11-24T05:00:00.000Z",
      monitoring: cadence({ intervalMinutes: 60, until: "2026-11-24T03:00:00.000Z" }),
      monitoringRuns: { count: 1, lastEndedAt: "2026-11-23T23:30:00.000Z" },
    };
    expect(queued(doc, at("2026-11-24T00:45:00Z"))).toEqual({ code: "BEFORE_WINDOW", until: at("2026-11-24T01:00:00Z") });
    expect(queued({ ...doc, monitoringRuns: { count: 1, lastEndedAt: "2026-11-24T00:30:00.000Z" } }, at("2026-11-24T01:15:00Z"))).toEqual({
      code: "BEFORE_WINDOW",
      until: at("2026-11-24T01:30:00Z"),
    });
    expect(queued(doc, at("2026-11-24T03:00:01Z"))).toEqual({ code: "AFTER_WINDOW", until: null });
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
