import { describe, expect, it } from "vitest";
import { defaultObservatoryTiming, estimatedSeconds, formatDuration } from "./estimate";

const target = (...exposures: Array<[exposureSeconds: number, count: number]>) => ({
  exposures: exposures.map(([exposureSeconds, count]) => ({ exposureSeconds, count })),
});

describe("estimatedSeconds: slewSeconds per target + Σ count × (exposureSeconds + readoutSeconds)", () => {
  it("adds one slew per target and a readout after every exposure", () => {
    expect(estimatedSeconds({ targets: [target([60, 3])], timing: defaultObservatoryTiming })).toBe(120 + 3 * (60 + 10));
    expect(estimatedSeconds({ targets: [target([30, 2], [120, 1]), target([5, 10])], timing: { slewSeconds: 90, readoutSeconds: 4 } })).toBe(
      90 + 2 * 34 + 124 + 90 + 10 * 9,
    );
  });

  it("counts nothing for settings of zero", () => {
    expect(estimatedSeconds({ targets: [target([60, 2])], timing: { slewSeconds: 0, readoutSeconds: 0 } })).toBe(120);
  });

  it("keeps fractions of a second without the drift of binary sums", () => {
    expect(estimatedSeconds({ targets: [target([0.1, 3], [0.2, 1])], timing: { slewSeconds: 0, readoutSeconds: 0 } })).toBe(0.5);
  });
});

describe("formatDuration", () => {
  it.each([
    [45, "45 s"],
    [60, "1 min"],
    [330, "5 min 30 s"],
    [3600, "1 h"],
    [7500, "2 h 5 min"],
    [0.4, "0 s"],
  ])("%s s reads as %s", (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});
