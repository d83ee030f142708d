import { describe, expect, it } from "vitest";
import type { ObservationDoc, StoredDocument } from "./test-observations";
import { nightOf } from "./night";
import { runDispatchForward } from "./plan";
import { planQueue, type ObservatoryState } from "./queue";
import { skyModel } from "./sky-model";

// La Palma on the night that begins 2026-11-23 (Atlantic/Canary is UTC+0 in winter).
const laPalma = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const model = skyModel({ location: laPalma });
const night = nightOf({ location: laPalma, timeZone: "Atlantic/Canary", date: "2026-11-23" })!;
const ready: ObservatoryState = { location: laPalma, online: true, dispatchEnabled: true, pluginCurrent: true, safe: true, busy: false };
const MINUTE = 60_000;

let counter = 0;
function observation(fields: Partial<ObservationDoc> & { ra: number; dec: number; minutes?: number; minAltitude?: number }): StoredDocument<ObservationDoc> {
  counter += 1;
  const { ra, dec, minutes = 30, minAltitude = 30, ...rest } = fields;
  return {
    id: `obn_${String(counter).padStart(4, "0")}`,
    createdAt: new Date(Date.parse("2026-11-20T00:00:00Z") + counter),
    updatedAt: new Date("2026-11-20T00:00:00Z"),
    doc: {
      name: `Observation ${counter}`,
      projectId: "prj_1",
      observatoryId: "obs_1",
      ownerId: "usr_1",
      type: "flexible",
      priority: 5,
      // One exposure of `minutes`: durations below come from the same number.
      targets: [{ name: "T", ra, dec, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: minutes * 60, count: 1, binning: 1 }] }],
      constraints: { minAltitude, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
      fixedTimeStart: null,
      fixedTimeEnd: null,
      bypassDarkness: false,
      notifications: { email: true, push: true, states: [] },
      status: "pending",
      statusReason: null,
      statusChangedAt: "2026-11-20T00:00:00.000Z",
      isMonitoring: false,
      staleReportedAt: null,
      ...rest,
    },
  };
}
const durationMs = (item: StoredDocument<ObservationDoc>) => item.doc.targets[0]!.exposures[0]!.exposureSeconds * 1000;
const inDispatchOrder = (items: StoredDocument<ObservationDoc>[]) =>
  [...items].sort((a, b) => b.doc.priority - a.doc.priority || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
const plan = (items: StoredDocument<ObservationDoc>[], start = night.darkStart!, end = night.sunrise) =>
  runDispatchForward({ model, pending: inDispatchOrder(items), start, end, durationMs });
const altitudeAt = (item: StoredDocument<ObservationDoc>, at: number) => model.at(new Date(at)).targetAltitude(item.doc.targets[0]!);

/**
 * Dispatch itself, stepped: whenever the observatory is free it asks `planQueue` (what the
 * dispatch job asks) and takes the first eligible observation; an idle observatory is asked again
 * at each whole minute, as the minute's cron does. The plan must say exactly this.
 */
function dispatchStepByStep(items: StoredDocument<ObservationDoc>[], start: Date, end: Date) {
  let pending = inDispatchOrder(items);
  const assigned: Array<{ id: string; start: number }> = [];
  let now = start.getTime();
  while (now < end.getTime() && pending.length > 0) {
    const first = planQueue({ state: ready, pending, now: new Date(now), model, durationMs }).items.find((item) => item.eligible);
    if (first) {
      assigned.push({ id: first.observation.id, start: now });
      pending = pending.filter((item) => item !== first.observation);
      now += durationMs(first.observation);
    } else {
      now = Math.floor(now / MINUTE) * MINUTE + MINUTE;
    }
  }
  return assigned;
}

describe("the night plan at La Palma, 2026-11-23", () => {
  it("knows the night: sunset, astronomical darkness, sunrise, in order", () => {
    expect(night.sunset < night.darkStart! && night.darkStart! < night.darkEnd! && night.darkEnd! <= night.sunrise).toBe(true);
    expect(night.sunset.toISOString()).toMatch(/^2026-11-23T18:/);
    expect(night.sunrise.toISOString()).toMatch(/^2026-11-24T07:/);
  });

  it("starts the first observation at darkness and runs the rest back to back, highest priority first", () => {
    // Orion's belt region, high all night in November; three observations of 30 minutes.
    const low = observation({ ra: 84, dec: -1, priority: 3 });
    const high = observation({ ra: 84, dec: -1, priority: 9 });
    const middle = observation({ ra: 84, dec: -1, priority: 5 });
    // Orion rises in the evening: start when it stands high.
    const start = new Date(night.darkStart!.getTime() + 6 * 3_600_000 + 17_000);
    const { slots } = plan([low, high, middle], start);
    expect(slots.map((slot) => slot.observation.id)).toEqual([high.id, middle.id, low.id]);
    expect(slots[0]!.start).toEqual(start);
    expect(slots[1]!.start.getTime()).toBe(slots[0]!.end.getTime());
    expect(slots[2]!.start.getTime()).toBe(slots[1]!.end.getTime());
  });

  it("waits for astronomical darkness from a daytime start, to the minute dispatch would wake", () => {
    const item = observation({ ra: 330, dec: 20 });
    const { slots } = plan([item], night.sunset);
    expect(slots).toHaveLength(1);
    expect(slots[0]!.start.getTime() % MINUTE).toBe(0);
    expect(slots[0]!.start.getTime() - night.darkStart!.getTime()).toBeGreaterThanOrEqual(0);
    expect(slots[0]!.start.getTime() - night.darkStart!.getTime()).toBeLessThan(MINUTE);
  });

  it("takes a nautical-twilight observation before astronomical darkness, and never after the end of its darkness", () => {
    const nautical = observation({ ra: 330, dec: 20, constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "nautical" } });
    const { slots } = plan([nautical], night.sunset);
    expect(slots[0]!.start < night.darkStart!).toBe(true);
    expect(model.at(slots[0]!.start).sunAltitude).toBeLessThan(-12);
  });

  it("runs a setting target early and never after it drops below its minimum altitude", () => {
    // Right ascension 21h: high at dusk in November, below 30° before midnight.
    const setting = observation({ ra: 315, dec: 10, priority: 1 });
    // Higher-priority work fills the first hours, so the setting target's chance is gone.
    const blockers = [observation({ ra: 0, dec: 30, priority: 9, minutes: 200 })];
    const result = plan([setting, ...blockers]);
    expect(result.slots.map((slot) => slot.observation.id)).toEqual([blockers[0]!.id]);
    expect(result.unscheduled).toEqual([{ observation: setting, blockedBy: { code: "OBSERVATORY_BUSY", until: null } }]);
    const alone = plan([setting]);
    expect(altitudeAt(setting, alone.slots[0]!.start.getTime())).toBeGreaterThanOrEqual(30);
  });

  it("starts a target that rises late at the first whole minute it stands above its minimum", () => {
    // Right ascension 10h: rises in the east after midnight in November.
    const late = observation({ ra: 150, dec: 10 });
    const { slots } = plan([late]);
    const start = slots[0]!.start.getTime();
    expect(altitudeAt(late, start)).toBeGreaterThanOrEqual(30);
    expect(altitudeAt(late, start - MINUTE)).toBeLessThan(30);
    expect(start).toBeGreaterThan(night.darkStart!.getTime() + 3 * 3_600_000);
  });

  it("never starts an observation that would run into dawn or below its minimum altitude", () => {
    // Two hours of exposures an hour and a half before the end of darkness, on a target high all night.
    const long = observation({ ra: 84, dec: 20, minutes: 120 });
    const lateStart = new Date(night.darkEnd!.getTime() - 90 * MINUTE);
    const { slots, unscheduled } = plan([long], lateStart);
    expect(slots).toEqual([]);
    // Dark now, so not NOT_DARK: it would not finish before the end of darkness, and fits whole from a later night's darkness.
    expect(unscheduled[0]!.blockedBy).toMatchObject({ code: "WOULD_NOT_FINISH", limit: "darkness", at: night.darkEnd });
    expect(unscheduled[0]!.blockedBy.until!.getTime()).toBeGreaterThan(night.sunrise.getTime());
    const item = planQueue({ state: ready, pending: [long], now: lateStart, model, durationMs }).items[0]!;
    expect(item.reasons.map((reason) => [reason.code, reason.limit])).toEqual([["WOULD_NOT_FINISH", "darkness"]]);
    // Half an hour of it fits, and starts at once.
    const short = observation({ ra: 84, dec: 20, minutes: 30 });
    expect(plan([short], lateStart).slots[0]!.start).toEqual(lateStart);
  });

  it("leaves a target that is never visible unscheduled, with no end to that", () => {
    const never = observation({ ra: 100, dec: -75 });
    const { slots, unscheduled } = plan([never]);
    expect(slots).toEqual([]);
    // Its declination lies 104° from the latitude: it culminates 14° below the horizon (refraction lifts it a little).
    expect(unscheduled).toEqual([{ observation: never, blockedBy: { code: "TARGET_NOT_VISIBLE", until: null, highestAltitude: -13.2 } }]);
  });

  it("holds an observation before its window with the window's start, and after its window with no end", () => {
    const later = observation({ ra: 84, dec: -1, fixedTimeStart: "2026-11-30T01:00:00.000Z" });
    const over = observation({ ra: 84, dec: -1, fixedTimeEnd: "2026-11-22T01:00:00.000Z" });
    const { unscheduled } = plan([later, over]);
    expect(unscheduled.map((item) => item.blockedBy)).toEqual([
      { code: "BEFORE_WINDOW", until: new Date("2026-11-30T01:00:00.000Z") },
      { code: "AFTER_WINDOW", until: null },
    ]);
  });

  it("is what dispatch, asked at every free moment and every minute, does with a crowded night", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const items = Array.from({ length: 60 }, () =>
      observation({
        ra: random() * 360,
        dec: random() * 100 - 30,
        priority: 1 + Math.floor(random() * 10),
        minutes: 5 + Math.floor(random() * 40),
        minAltitude: 20 + Math.floor(random() * 30),
      }),
    );
    const start = new Date(night.sunset.getTime() + 7 * MINUTE);
    const planned = plan(items, start).slots.map((slot) => ({ id: slot.observation.id, start: slot.start.getTime() }));
    expect(planned.length).toBeGreaterThan(10);
    expect(planned).toEqual(dispatchStepByStep(items, start, night.sunrise));
  });
});
