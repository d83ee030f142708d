import { describe, expect, it } from "vitest";
import { nightOf } from "./night";
import { sunAltitude } from "./sky";
import { twilightBoundaries } from "./twilight-boundaries";

const laPalma = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
// Near Helsinki at midsummer the sun sinks to about 7° below the horizon: civil twilight ends, nautical never does.
const helsinki = { latitude: 60.17, longitude: 24.94, elevation: 20 };

describe("twilight boundaries of a night", () => {
  it("go from sunset through civil and nautical dusk to darkness, and back in the morning, each where the sun crosses its altitude", () => {
    const night = nightOf({ location: laPalma, timeZone: "Atlantic/Canary", date: "2026-11-23" })!;
    const bands = twilightBoundaries({ location: laPalma, night });
    const order = [night.sunset, bands.civilDusk, bands.nauticalDusk, night.darkStart, night.darkEnd, bands.nauticalDawn, bands.civilDawn, night.sunrise];
    const times = order.map((date) => date!.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    for (const [date, altitude] of [
      [bands.civilDusk, -6],
      [bands.nauticalDusk, -12],
      [bands.nauticalDawn, -12],
      [bands.civilDawn, -6],
    ] as const) {
      expect(sunAltitude({ location: laPalma, at: date! })).toBeCloseTo(altitude, 1);
    }
  });

  it("are null where the sun does not get that low", () => {
    const night = nightOf({ location: helsinki, timeZone: "Europe/Helsinki", date: "2026-06-21" })!;
    expect(night.darkStart).toBeNull();
    const bands = twilightBoundaries({ location: helsinki, night });
    expect(bands.nauticalDusk).toBeNull();
    expect(bands.nauticalDawn).toBeNull();
    expect(bands.civilDusk!.getTime()).toBeLessThan(bands.civilDawn!.getTime());
  });
});
