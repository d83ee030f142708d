// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { renderInApp, textOf } from "../../test-support/render";
import type { ObservationInput } from "./draft";
import { ForecastText, type DraftForecast } from "./ForecastSlot";

const input = {
  constraints: { minAltitude: 30, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
} as unknown as ObservationInput;

const reviewText = (data: DraftForecast) => {
  const { container } = renderInApp(<ForecastText input={input} pending={false} error={null} data={data} />);
  return textOf(container);
};

const nothingExpected = { timeZone: "America/Santiago", expectedStart: null, expectedEnd: null, observatoryReasons: [] };

describe("the wizard review's forecast", () => {
  it("says a target that never rises above the minimum altitude from the site does so, with the highest it gets", () => {
    const text = reviewText({ ...nothingExpected, blockedBy: { code: "TARGET_NOT_VISIBLE", until: null, highestAltitude: 20.8 } });
    expect(text).toBe("Not within the next week: never rises above 30° from this site (highest 21°).");
  });

  it("says a window that lies wholly in daylight does so", () => {
    const text = reviewText({ ...nothingExpected, blockedBy: { code: "NOT_DARK", until: null, windowInDaylight: true } });
    expect(text).toMatch(/^Not within the next week: .*daylight/);
  });
});
