import { describe, expect, it } from "vitest";
import { formatClock, formatObservatoryTime } from "./format";
import { zoneClock } from "./zone-time";

// 10:05 UTC on 2 January is 21:05 in Sydney (AEDT); 22:05 UTC the day before is 09:05 there.
const evening = "2031-01-02T10:05:00.000Z";
const morning = "2031-01-01T22:05:00.000Z";
const sydney = "Australia/Sydney";

describe("times of day", () => {
  it("read on the 24-hour clock with two-digit hours, in dates, sentences and the night's axes alike", () => {
    expect(formatObservatoryTime(evening, sydney, { choice: "observatory" })).toMatch(/ 21:05 (AEDT|GMT\+11)$/);
    expect(formatObservatoryTime(morning, sydney, { choice: "observatory" })).toMatch(/ 09:05 (AEDT|GMT\+11)$/);
    expect(formatObservatoryTime(evening, sydney, { choice: "utc" })).toMatch(/ 10:05 UTC$/);
    expect(formatObservatoryTime(evening, sydney, { choice: "observatory", short: true })).toMatch(/ 21:05 (AEDT|GMT\+11)$/);
    expect(zoneClock(evening, sydney)).toBe("21:05");
    expect(zoneClock(morning, sydney)).toBe("09:05");
    expect(formatClock(evening)).toMatch(/^[0-2]\d:05$/);
    for (const text of [formatObservatoryTime(evening, sydney), formatClock(morning), zoneClock(morning, sydney)]) expect(text).not.toMatch(/AM|PM/i);
  });
});
