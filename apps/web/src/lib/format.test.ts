import { describe, expect, it } from "vitest";
import { formatClock, formatDateTime, formatObservatoryTime, formatShortDateTime } from "./format";
import { zoneName } from "./time-display";
import { zoneAbbreviation, zoneClock, zoneClockWithZone, zoneLabel } from "./zone-time";

// 10:05 UTC on 2 January is 21:05 in Sydney (UTC+11 in its summer); 22:05 UTC the day before is 09:05 there.
const evening = "2031-01-02T10:05:00.000Z";
const morning = "2031-01-01T22:05:00.000Z";
const sydney = "Australia/Sydney";

describe("times of day", () => {
  it("read on the 24-hour clock with two-digit hours, in dates, sentences and the night's axes alike", () => {
    expect(formatObservatoryTime(evening, sydney, { choice: "observatory" })).toMatch(/ 21:05 UTC\+11$/);
    expect(formatObservatoryTime(morning, sydney, { choice: "observatory" })).toMatch(/ 09:05 UTC\+11$/);
    expect(formatObservatoryTime(evening, sydney, { choice: "utc" })).toMatch(/ 10:05 UTC$/);
    expect(formatObservatoryTime(evening, sydney, { choice: "observatory", short: true })).toMatch(/ 21:05 UTC\+11$/);
    expect(zoneClock(evening, sydney)).toBe("21:05");
    expect(zoneClock(morning, sydney)).toBe("09:05");
    expect(formatClock(evening)).toMatch(/^[0-2]\d:05 UTC/);
    for (const text of [formatObservatoryTime(evening, sydney), formatClock(morning), zoneClock(morning, sydney)]) expect(text).not.toMatch(/AM|PM/i);
  });
});

describe("every time names its zone, one way everywhere", () => {
  it("names a zone by its offset from UTC at that moment, whatever the zone and the reader's locale", () => {
    const at = new Date(evening);
    expect(zoneName(sydney, at)).toBe("UTC+11");
    expect(zoneName(sydney, new Date("2031-07-02T10:05:00.000Z"))).toBe("UTC+10");
    expect(zoneName("America/Sao_Paulo", at)).toBe("UTC-3");
    expect(zoneName("Asia/Kolkata", at)).toBe("UTC+5:30");
    expect(zoneName("UTC", at)).toBe("UTC");
    expect(zoneName("Europe/London", at)).toBe("UTC");
  });

  it("gives an observatory's panels, sentences and tables the same name for the same zone", () => {
    expect(formatObservatoryTime(evening, sydney, { choice: "observatory" })).toMatch(/ 21:05 UTC\+11$/);
    expect(zoneClockWithZone(evening, sydney)).toBe("21:05 UTC+11");
    expect(zoneAbbreviation(sydney, evening)).toBe("UTC+11");
    expect(zoneLabel(sydney, evening)).toBe("observatory time, UTC+11");
  });

  it("names the browser's zone too: account-wide times and an observation's time before its observatory's zone is known", () => {
    const browser = zoneName(undefined, new Date(evening));
    expect(browser).toMatch(/^UTC([+-]\d{1,2}(:\d\d)?)?$/);
    for (const text of [formatDateTime(evening), formatShortDateTime(evening), formatClock(evening), formatObservatoryTime(evening, undefined)])
      expect(text.endsWith(` ${browser}`)).toBe(true);
  });
});
