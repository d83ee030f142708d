import { Body, Observer, SearchAltitude, SiderealTime } from "astronomy-engine";
import { describe, expect, it } from "vitest";
import type { ObservationDoc, StoredDocument } from "./test-observations";
import { runDispatchForward } from "./plan";
import { isEligibleAt, planQueue, targetVisible, type ObservatoryState } from "./queue";
import { darkInterval, targetAltitude } from "./sky";
import { skyModel } from "./sky-model";

// La Palma, on a fixed date: every case runs at a clock the test chooses.
const laPalma = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const observer = new Observer(laPalma.latitude, laPalma.longitude, laPalma.elevation);
const noon = new Date("2026-11-23T12:50:00Z");
const dusk = (altitude: number) => SearchAltitude(Body.Sun, observer, -1, noon, 1, altitude)!.date;
const night = new Date(dusk(-18).getTime() + 3 * 3_600_000);
/** A target at the zenith at `at`: right ascension = local sidereal time, declination = latitude. */
const zenithAt = (at: Date) => ({ name: "Zenith", ra: ((((SiderealTime(at) + laPalma.longitude / 15) % 24) + 24) % 24) * 15, dec: laPalma.latitude });

const ready: ObservatoryState = { location: laPalma, online: true, dispatchEnabled: true, pluginCurrent: true, safe: true, busy: false };
let counter = 0;
function observation(fields: Partial<ObservationDoc> & { twilight?: ObservationDoc["constraints"]["twilight"] } = {}): StoredDocument<ObservationDoc> {
  counter += 1;
  const { twilight = "astronomical", ...rest } = fields;
  return {
    id: `obn_${counter}`,
    createdAt: new Date(noon.getTime() - 86_400_000 + counter),
    updatedAt: noon,
    doc: {
      name: `Observation ${counter}`,
      projectId: "prj_1",
      observatoryId: "obs_1",
      ownerId: "usr_1",
      type: "flexible",
      priority: 5,
      targets: [{ ...zenithAt(night), epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
      constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight },
      fixedTimeStart: null,
      fixedTimeEnd: null,
      bypassDarkness: false,
      notifications: { email: true, push: true, states: [] },
      status: "pending",
      statusReason: null,
      statusChangedAt: noon.toISOString(),
      isMonitoring: false,
      staleReportedAt: null,
      ...rest,
    },
  };
}
const single = (item: StoredDocument<ObservationDoc>, at: Date, state: ObservatoryState = ready) =>
  planQueue({ state, pending: [item], now: at, explain: true }).items[0]!;

describe("dispatch's darkness rule at a fixed location and clock", () => {
  it("holds an observation in daylight until astronomical dusk", () => {
    const item = single(observation(), noon);
    expect(item.eligible).toBe(false);
    expect(item.blockedBy?.code).toBe("NOT_DARK");
    expect(Math.abs(item.blockedBy!.until!.getTime() - dusk(-18).getTime())).toBeLessThan(60_000);
  });

  it("sends it at night, with its target high", () => {
    expect(targetAltitude({ location: laPalma, target: zenithAt(night), at: night })).toBeGreaterThan(80);
    expect(single(observation(), night)).toMatchObject({ eligible: true, blockedBy: null });
  });

  for (const [twilight, altitude] of [
    ["civil", -6],
    ["nautical", -12],
    ["astronomical", -18],
  ] as const) {
    it(`waits for the end of ${twilight} twilight (sun at ${altitude}°): not a minute before, eligible a minute after`, () => {
      const boundary = dusk(altitude);
      // A target high at the boundary, so only darkness decides.
      const doc = observation({
        twilight,
        targets: [{ ...zenithAt(boundary), epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
      });
      expect(single(doc, new Date(boundary.getTime() - 60_000)).blockedBy?.code).toBe("NOT_DARK");
      expect(single(doc, new Date(boundary.getTime() + 60_000))).toMatchObject({ eligible: true });
    });
  }

  it("ignores darkness with bypassDarkness, and at an observatory without a location", () => {
    const bypass = observation({
      bypassDarkness: true,
      targets: [{ ...zenithAt(noon), epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] }],
    });
    expect(single(bypass, noon)).toMatchObject({ eligible: true });
    expect(single(observation(), noon, { ...ready, location: null })).toMatchObject({ eligible: true });
    expect(planQueue({ state: { ...ready, location: null }, pending: [], now: noon }).darkness).toBeNull();
  });

  it("never sends a telescope below the horizon, or past the airmass limit, and says when the target can next be observed", () => {
    const below = observation({
      targets: [
        {
          name: "Nadir-ish",
          ra: (zenithAt(night).ra + 180) % 360,
          dec: -laPalma.latitude,
          epoch: "J2000",
          exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }],
        },
      ],
    });
    const item = single(below, night);
    expect(item.blockedBy?.code).toBe("TARGET_NOT_VISIBLE");
    // It culminates at noon: above 30° only in daylight for the week ahead, so no moment meets every constraint.
    expect(item.blockedBy!.until).toBeNull();
    // Six hours east of the zenith: it rises above 30° later this night, and `until` is that minute, in darkness.
    const rising = observation({
      targets: [
        { ...zenithAt(night), ra: (zenithAt(night).ra + 90) % 360, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: 1, count: 1, binning: 1 }] },
      ],
    });
    const until = single(rising, night).blockedBy!.until!;
    expect(targetAltitude({ location: laPalma, target: rising.doc.targets[0]!, at: until })).toBeGreaterThanOrEqual(30);
    expect(targetAltitude({ location: laPalma, target: rising.doc.targets[0]!, at: new Date(until.getTime() - 60_000) })).toBeLessThan(30);
    expect(single(rising, until)).toMatchObject({ eligible: true });
    const tight = observation({ constraints: { minAltitude: 0, maxAirmass: 1.0001, moonDistance: null, twilight: "astronomical" } });
    expect(single(tight, new Date(night.getTime() + 2 * 3_600_000)).blockedBy?.code).toBe("TARGET_NOT_VISIBLE");
  });
});

describe("the explained queue's order and reasons", () => {
  it("lists highest priority first, then oldest, and gives the observation's own reason before the observatory's", () => {
    const low = observation({ priority: 2 });
    const highOld = observation({ priority: 9 });
    const highNew = observation({ priority: 9 });
    const windowed = observation({ priority: 10, fixedTimeStart: new Date(night.getTime() + 3_600_000).toISOString() });
    const ordered = [windowed, highOld, highNew, low];
    const plan = planQueue({ state: { ...ready, busy: true, online: false }, pending: ordered, now: night });
    expect(plan.items.map((item) => item.observation.id)).toEqual(ordered.map((item) => item.id));
    expect(plan.items[0]!.blockedBy).toMatchObject({ code: "BEFORE_WINDOW" });
    expect(plan.items[1]!.blockedBy).toMatchObject({ code: "OBSERVATORY_BUSY", until: null });
  });

  it("names the observatory's first reason in the contract's order", () => {
    const item = observation();
    expect(single(item, night, { ...ready, online: false, dispatchEnabled: false }).blockedBy?.code).toBe("OFFLINE");
    expect(single(item, night, { ...ready, dispatchEnabled: false, pluginCurrent: false }).blockedBy?.code).toBe("DISPATCH_OFF");
    expect(single(item, night, { ...ready, pluginCurrent: false, safe: false }).blockedBy?.code).toBe("PLUGIN_OUTDATED");
    expect(single(item, night, { ...ready, safe: false }).blockedBy?.code).toBe("UNSAFE");
    const late = observation({ fixedTimeEnd: new Date(night.getTime() - 60_000).toISOString() });
    expect(single(late, night).blockedBy).toEqual({ code: "AFTER_WINDOW", until: null });
  });

  it("gives the current dark interval at night and the next one by day", () => {
    const byDay = planQueue({ state: ready, pending: [], now: noon }).darkness!;
    expect(Math.abs(byDay.start.getTime() - dusk(-18).getTime())).toBeLessThan(60_000);
    const atNight = planQueue({ state: ready, pending: [], now: night }).darkness!;
    expect(atNight.start.getTime()).toBeLessThan(night.getTime());
    expect(atNight.end.getTime()).toBeGreaterThan(night.getTime());
  });
});

/** A run of one exposure of `minutes`, on `target` (default: the zenith at `night`), as the observatory's estimate would hold it. */
function lasting(minutes: number, fields: Partial<ObservationDoc> & { target?: { ra: number; dec: number } } = {}) {
  const { target = zenithAt(night), ...rest } = fields;
  return observation({
    targets: [{ name: "T", ...target, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: minutes * 60, count: 1, binning: 1 }] }],
    ...rest,
  });
}
const estimateMs = (item: StoredDocument<ObservationDoc>) => item.doc.targets[0]!.exposures[0]!.exposureSeconds * 1000;
const queued = (item: StoredDocument<ObservationDoc>, at: Date, state: ObservatoryState = ready) => {
  const queueItem = planQueue({ state, pending: [item], now: at, explain: true, durationMs: estimateMs }).items[0]!;
  // No reason's `until` is ever in the past.
  for (const reason of queueItem.reasons) if (reason.until) expect(reason.until.getTime()).toBeGreaterThanOrEqual(at.getTime());
  return queueItem;
};
const MINUTE = 60_000;
const laPalmaSky = skyModel({ location: laPalma });

describe("an observation that fits now but would not finish (WOULD_NOT_FINISH)", () => {
  const dawn = darkInterval({ location: laPalma, twilight: "astronomical", at: night })!.end;

  it("at dawn: a run that would outlast the darkness says so, with dawn, and when it next fits whole", () => {
    const item = lasting(25, { target: zenithAt(dawn) });
    // Twenty minutes before dawn, dark now: 25 minutes would end after it.
    const now = new Date(dawn.getTime() - 20 * MINUTE);
    const queue = planQueue({ state: ready, pending: [], now });
    expect(queue.darkness!.start.getTime()).toBeLessThan(now.getTime());
    const { eligible, reasons, blockedBy } = queued(item, now);
    expect(eligible).toBe(false);
    expect(reasons).toHaveLength(1);
    expect(blockedBy).toMatchObject({ code: "WOULD_NOT_FINISH", limit: "darkness" });
    expect(Math.abs(blockedBy!.at!.getTime() - dawn.getTime())).toBeLessThan(1000);
    // The next moment it fits whole is in the next night's darkness, and it is eligible then.
    const until = blockedBy!.until!;
    expect(until.getTime()).toBeGreaterThan(dawn.getTime());
    expect(queued(item, until).eligible).toBe(true);
    // With 26 minutes of darkness left it starts.
    expect(queued(item, new Date(dawn.getTime() - 26 * MINUTE)).eligible).toBe(true);
  });

  it("at a setting target: a run that would end below the minimum altitude names the minute it sinks past it", () => {
    // Three hours west of the meridian at `night`, near 51°: it sets through 30° later in the darkness.
    const target = { ra: (zenithAt(night).ra + 360 - 45) % 360, dec: laPalma.latitude };
    let sinks = Math.ceil(night.getTime() / MINUTE) * MINUTE;
    while (laPalmaSky.atMs(sinks).targetAltitude(target) >= 30) sinks += MINUTE;
    const item = lasting(15, { target });
    const now = new Date(sinks - 10 * MINUTE);
    expect(laPalmaSky.at(now).targetAltitude(target)).toBeGreaterThan(30);
    const { blockedBy, reasons } = queued(item, now);
    expect(reasons).toHaveLength(1);
    expect(blockedBy).toMatchObject({ code: "WOULD_NOT_FINISH", limit: "altitude", at: new Date(sinks) });
    expect(blockedBy!.until!.getTime()).toBeGreaterThan(sinks);
    expect(queued(item, blockedBy!.until!).eligible).toBe(true);
    expect(queued(item, new Date(sinks - 16 * MINUTE)).eligible).toBe(true);
  });

  it("at its window's end: dispatch does not start a run that would end after it, and nothing later fits", () => {
    const end = new Date(Math.ceil((night.getTime() + 3_600_000) / MINUTE) * MINUTE);
    const item = lasting(30, { fixedTimeEnd: end.toISOString() });
    const { eligible, reasons } = queued(item, new Date(end.getTime() - 20 * MINUTE));
    expect(eligible).toBe(false);
    expect(reasons).toEqual([{ code: "WOULD_NOT_FINISH", limit: "window", at: end, until: null }]);
    expect(queued(item, new Date(end.getTime() - 31 * MINUTE)).eligible).toBe(true);
  });

  it("places each limit where its own code stands: the window's before darkness's before the target's", () => {
    const end = new Date(dawn.getTime() - 10 * MINUTE);
    // Five hours west of the meridian at dawn: it sinks through 30° some twenty minutes before.
    const target = { ra: (zenithAt(dawn).ra + 360 - 75) % 360, dec: laPalma.latitude };
    const item = lasting(60, { target, fixedTimeEnd: end.toISOString() });
    const { reasons } = queued(item, new Date(dawn.getTime() - 50 * MINUTE));
    expect(reasons.map((reason) => reason.limit)).toEqual(["window", "darkness", "altitude"]);
  });
});

describe("an observation that can never run here", () => {
  // A site at 30.5° south, where Vega and the North America nebula stay low in the north all year.
  const south = { latitude: -30.5, longitude: -70.8, elevation: 2200 };
  const southern: ObservatoryState = { ...ready, location: south };
  const vega = lasting(10, { target: { ra: 279.2347, dec: 38.7837 } });
  const ngc7000 = lasting(10, { target: { ra: 314.7, dec: 44.33 } });

  it("names a target's highest altitude at the site when it never reaches its minimum, in the queue and the plan", () => {
    for (const [item, highest] of [
      [vega, 21],
      [ngc7000, 15],
    ] as const) {
      for (const at of [noon, night]) {
        const reason = queued(item, at, southern).reasons.find((found) => found.code === "TARGET_NOT_VISIBLE");
        expect(reason).toMatchObject({ code: "TARGET_NOT_VISIBLE", until: null });
        expect(Math.round(reason!.highestAltitude!)).toBe(highest);
      }
      const model = skyModel({ location: south });
      const { unscheduled } = runDispatchForward({ model, pending: [item], start: noon, end: new Date(noon.getTime() + 86_400_000), durationMs: estimateMs });
      expect(Math.round(unscheduled[0]!.blockedBy.highestAltitude!)).toBe(highest);
    }
    // From La Palma Vega passes near the zenith: no such reason there.
    expect(queued(vega, noon).reasons.map((reason) => reason.code)).toEqual(["NOT_DARK"]);
  });

  it("says a window that lies wholly in daylight has no darkness, in the queue and the plan", () => {
    const item = lasting(10, {
      target: zenithAt(noon),
      fixedTimeStart: new Date(noon.getTime() + 3_600_000).toISOString(),
      fixedTimeEnd: new Date(noon.getTime() + 3 * 3_600_000).toISOString(),
    });
    const before = new Date(noon.getTime() - 3 * 3_600_000);
    expect(queued(item, before).reasons).toEqual([
      { code: "BEFORE_WINDOW", until: new Date(noon.getTime() + 3_600_000) },
      { code: "NOT_DARK", until: null, windowInDaylight: true },
    ]);
    expect(queued(item, new Date(noon.getTime() + 2 * 3_600_000)).reasons).toEqual([{ code: "NOT_DARK", until: null, windowInDaylight: true }]);
    const { unscheduled } = runDispatchForward({
      model: laPalmaSky,
      pending: [item],
      start: before,
      end: new Date(before.getTime() + 86_400_000),
      durationMs: estimateMs,
    });
    expect(unscheduled[0]!.blockedBy).toEqual({ code: "NOT_DARK", until: null, windowInDaylight: true });
    // However far ahead the window lies; and one that holds a night is not said to.
    const far = lasting(10, { fixedTimeStart: "2099-06-01T12:00:00.000Z", fixedTimeEnd: "2099-06-01T14:00:00.000Z" });
    expect(queued(far, noon).reasons).toContainEqual({ code: "NOT_DARK", until: null, windowInDaylight: true });
    const overnight = lasting(10, { fixedTimeStart: "2099-06-01T12:00:00.000Z", fixedTimeEnd: "2099-06-02T12:00:00.000Z" });
    expect(queued(overnight, noon).reasons.filter((reason) => reason.windowInDaylight)).toEqual([]);
  });
});

describe("the filters an observatory reported (FILTER_MISSING)", () => {
  const asking = (...filters: string[]) =>
    lasting(10, {
      targets: [
        { ...zenithAt(night), name: "T", epoch: "J2000", exposures: filters.map((filter) => ({ filter, exposureSeconds: 600, count: 1, binning: 1 })) },
      ],
    });
  const lrgb: ObservatoryState = { ...ready, filters: ["L", "R", "G", "B"] };

  it("holds an observation whose exposures ask for a filter the observatory lacks, names compared case-insensitively", () => {
    expect(queued(asking("L", "Ha"), night, lrgb)).toMatchObject({ eligible: false, blockedBy: { code: "FILTER_MISSING", until: null } });
    expect(queued(asking("l", "r", "G"), night, lrgb).eligible).toBe(true);
    // An observatory that never reported filters holds nothing back.
    expect(queued(asking("Ha"), night, ready).eligible).toBe(true);
    expect(queued(asking("Ha"), night, { ...ready, filters: null }).eligible).toBe(true);
  });

  it("stands right after ALLOCATION_EXHAUSTED: after the observation's own reasons, before the observatory's", () => {
    const allowances = new Map([["prj_1", { leftMs: 0, until: null }]]);
    const item = planQueue({
      state: { ...lrgb, online: false },
      pending: [asking("Ha")],
      now: noon,
      explain: true,
      durationMs: estimateMs,
      allowances,
    }).items[0]!;
    expect(item.reasons.map((reason) => reason.code)).toEqual(["NOT_DARK", "TARGET_NOT_VISIBLE", "ALLOCATION_EXHAUSTED", "FILTER_MISSING", "OFFLINE"]);
  });

  it("keeps the observation out of the night plan, which says FILTER_MISSING after an allocation spent", () => {
    const equipped = asking("R");
    const lacking = asking("Ha");
    const start = new Date(night.getTime() - 3_600_000);
    const end = new Date(night.getTime() + 3_600_000);
    const planned = runDispatchForward({ model: laPalmaSky, pending: [lacking, equipped], start, end, durationMs: estimateMs, filters: lrgb.filters });
    expect(planned.slots.map((slot) => slot.observation.id)).toEqual([equipped.id]);
    expect(planned.unscheduled).toEqual([{ observation: lacking, blockedBy: { code: "FILTER_MISSING", until: null } }]);
    const spent = runDispatchForward({
      model: laPalmaSky,
      pending: [lacking],
      start,
      end,
      durationMs: estimateMs,
      filters: ["L"],
      allowances: new Map([["prj_1", 0]]),
    });
    expect(spent.unscheduled[0]!.blockedBy.code).toBe("ALLOCATION_EXHAUSTED");
    // Without a filter list it runs.
    expect(runDispatchForward({ model: laPalmaSky, pending: [lacking], start, end, durationMs: estimateMs }).slots).toHaveLength(1);
  });
});

describe("a run's checks of the sky settled by a bound (ADR 0050)", () => {
  it("answers isEligibleAt as checking the darkness and the target at its start, every half hour and its end does", () => {
    const sites = [
      laPalma,
      { latitude: 0.5, longitude: 100, elevation: 0 },
      { latitude: -31.27, longitude: 149.06, elevation: 1165 },
      { latitude: 64.8, longitude: -147.7, elevation: 130 },
    ];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const twilights = ["astronomical", "nautical", "civil"] as const;
    let settledEitherWay = 0;
    for (let index = 0; index < 1200; index += 1) {
      const model = skyModel({ location: sites[index % sites.length]! });
      const doc = {
        projectId: "prj_1",
        targets: [{ ra: random() * 360, dec: random() * 180 - 90, exposures: [{ filter: "L" }] }],
        constraints: {
          minAltitude: Math.floor(random() * 60),
          maxAirmass: random() < 0.15 ? 2 : null,
          moonDistance: random() < 0.15 ? 30 : null,
          twilight: twilights[index % 3]!,
        },
        fixedTimeStart: null,
        fixedTimeEnd: null,
        bypassDarkness: random() < 0.1,
      };
      const ms = noon.getTime() + Math.floor(random() * 2 * 86_400_000);
      const durationMs = Math.floor(random() * 5 * 3_600_000);
      // Every check, one by one: the start, every half hour after it and the end rounded up to the minute.
      const checks = [ms];
      for (let at = ms + 30 * 60_000; at < ms + durationMs; at += 30 * 60_000) checks.push(at);
      if (durationMs > 0) checks.push(Math.ceil((ms + durationMs) / 60_000) * 60_000);
      const holds = checks.every((at) => {
        const sky = model.atMs(at);
        return (doc.bypassDarkness || sky.isDark(doc.constraints.twilight)) && targetVisible(doc, sky);
      });
      expect(isEligibleAt({ doc, model, ms, durationMs }), `case ${index}`).toBe(holds);
      if (holds || checks.slice(1).some((at) => !model.atMs(at).isDark(doc.constraints.twilight))) settledEitherWay += 1;
    }
    // Runs that hold and runs that cross a twilight both among the cases.
    expect(settledEitherWay).toBeGreaterThan(300);
  });
});
