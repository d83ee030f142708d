import { describe, expect, it } from "vitest";
import { moonDistance, sunAltitude, targetAltitude } from "./sky";
import { ALTITUDE_RATE_BOUND } from "./queue";
import { skyModel } from "./sky-model";

// Three sites and a week of moments drawn with a fixed seed; astronomy-engine's own functions
// (sky.ts, through Equator and Horizon) are the reference the model must agree with.
const sites = [
  { latitude: 28.7606, longitude: -17.8792, elevation: 2396 },
  { latitude: -31.2733, longitude: 149.0617, elevation: 1165 },
  { latitude: 64.8, longitude: -147.7, elevation: 130 },
];
let seed = 11;
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return (seed - 1) / 2147483646;
};
const start = Date.parse("2026-12-10T00:00:00Z");
const cases = Array.from({ length: 300 }, () => ({
  site: sites[Math.floor(random() * sites.length)]!,
  at: new Date(start + Math.floor(random() * 7 * 24 * 60) * 60_000 + Math.floor(random() * 60_000)),
  target: { ra: random() * 360, dec: random() * 180 - 90 },
}));

describe("the sky model, against astronomy-engine's own answers", () => {
  it("gives a target's altitude, refraction included, as Horizon does", () => {
    for (const { site, at, target } of cases) {
      expect(skyModel({ location: site }).at(at).targetAltitude(target)).toBeCloseTo(targetAltitude({ location: site, target, at }), 6);
    }
  });

  it("gives the sun's altitude to a thousandth of a degree (a quarter of a second of a twilight boundary), from hourly positions", () => {
    for (const { site, at } of cases) {
      expect(Math.abs(skyModel({ location: site }).at(at).sunAltitude - sunAltitude({ location: site, at }))).toBeLessThan(0.001);
    }
  });

  it("gives the Moon's distance to a hundredth of a degree, from positions ten minutes apart", () => {
    for (const { site, at, target } of cases) {
      expect(Math.abs(skyModel({ location: site }).at(at).moonDistance(target) - moonDistance({ location: site, target, at }))).toBeLessThan(0.01);
    }
  });

  it("bounds a target's altitude over an interval from above, so a search may skip what cannot reach a minimum", () => {
    for (const { site, at, target } of cases.slice(0, 60)) {
      const model = skyModel({ location: site });
      const from = at.getTime();
      const to = from + 6 * 3_600_000;
      const highest = model.highestAltitude(target, from, to);
      for (let ms = from; ms <= to; ms += 10 * 60_000) {
        // The bound is geometric; refraction adds less than a degree above the horizon.
        expect(model.at(new Date(ms)).targetAltitude(target)).toBeLessThanOrEqual(highest + 1);
      }
    }
  });
});

describe("how fast the sky model's altitudes change", () => {
  it("moves no target and not the Sun faster than ALTITUDE_RATE_BOUND, on which queue.ts settles a run's checks (ADR 0050)", () => {
    const equator = { latitude: 0.2, longitude: 30, elevation: 0 };
    let fastest = 0;
    for (const { site, at, target } of [
      ...cases.slice(0, 40),
      ...cases.slice(40, 80).map((item) => ({ ...item, site: equator, target: { ...item.target, dec: item.target.dec / 10 } })),
    ]) {
      const model = skyModel({ location: site });
      for (let ms = at.getTime(); ms < at.getTime() + 12 * 3_600_000; ms += 60_000) {
        const [now, next] = [model.atMs(ms), model.atMs(ms + 60_000)];
        const rate = Math.max(Math.abs(next.geometricAltitude(target) - now.geometricAltitude(target)), Math.abs(next.sunAltitude - now.sunAltitude)) / 60_000;
        fastest = Math.max(fastest, rate);
      }
    }
    expect(fastest).toBeLessThanOrEqual(ALTITUDE_RATE_BOUND);
    // The bound is not loose by more than a few percent: targets on the equator rise at the sky's 15.04° an hour.
    expect(fastest).toBeGreaterThan((15 / 3_600_000) * 0.99);
  });
});
