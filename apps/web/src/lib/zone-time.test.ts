import { describe, expect, it } from "vitest";
import { wallClockOf, wallClockToIso } from "./zone-time";

// Sydney is UTC+11 in its summer and UTC+10 in its winter; São Paulo UTC-3 all year; the tests' own zone is neither.
const sydney = "Australia/Sydney";
const saoPaulo = "America/Sao_Paulo";

describe("a time typed on an observatory's clocks", () => {
  it("is read in the observatory's zone, not the browser's, far east and far west of UTC", () => {
    expect(wallClockToIso("2031-01-02T21:00", sydney)).toBe("2031-01-02T10:00:00.000Z");
    expect(wallClockToIso("2031-07-02T21:00", sydney)).toBe("2031-07-02T11:00:00.000Z");
    expect(wallClockToIso("2031-01-02T21:00", saoPaulo)).toBe("2031-01-03T00:00:00.000Z");
    expect(wallClockToIso("2031-01-02T21:00", "UTC")).toBe("2031-01-02T21:00:00.000Z");
    expect(wallClockToIso("2031-01-02T21:00:30.5", "Asia/Kolkata")).toBe("2031-01-02T15:30:30.500Z");
  });

  it("reads a time the clocks skip as that long after the change, and one they show twice as the first", () => {
    // 5 October 2031, 02:00 in Sydney: the clocks go to 03:00 (UTC+10 to UTC+11).
    expect(wallClockToIso("2031-10-05T01:59", sydney)).toBe("2031-10-04T15:59:00.000Z");
    expect(wallClockToIso("2031-10-05T02:30", sydney)).toBe("2031-10-04T16:30:00.000Z");
    expect(wallClockOf("2031-10-04T16:30:00.000Z", sydney)).toBe("2031-10-05T03:30");
    expect(wallClockToIso("2031-10-05T03:00", sydney)).toBe("2031-10-04T16:00:00.000Z");
    // 6 April 2031, 03:00 in Sydney: the clocks go back to 02:00, so 02:30 comes at 15:30 and at 16:30 UTC.
    expect(wallClockToIso("2031-04-06T02:30", sydney)).toBe("2031-04-05T15:30:00.000Z");
    expect(wallClockToIso("2031-04-06T03:00", sydney)).toBe("2031-04-05T17:00:00.000Z");
    expect(wallClockOf("2031-04-05T16:30:00.000Z", sydney)).toBe("2031-04-06T02:30");
  });

  it("is no time when it is not a date and time", () => {
    for (const text of ["", "tomorrow", "2031-02-29T10:00", "2031-13-01T10:00", "2031-01-02T24:00", "2031-01-02T10:60"])
      expect(wallClockToIso(text, sydney)).toBeUndefined();
  });
});

describe("a stored time shown in a field", () => {
  it("reads on the observatory's clocks to the minute, and reads back as the same moment", () => {
    expect(wallClockOf("2031-01-02T10:00:00.000Z", sydney)).toBe("2031-01-02T21:00");
    expect(wallClockOf("2031-01-03T00:00:00.000Z", saoPaulo)).toBe("2031-01-02T21:00");
    expect(wallClockOf("2031-07-02T11:00:00.000Z", sydney)).toBe("2031-07-02T21:00");
    for (const iso of ["2031-01-02T10:00:00.000Z", "2031-10-04T16:00:00.000Z", "2031-04-05T15:30:00.000Z", "2031-06-30T23:59:00.000Z"])
      for (const zone of [sydney, saoPaulo, "UTC"]) expect(wallClockToIso(wallClockOf(iso, zone), zone)).toBe(iso);
  });
});
