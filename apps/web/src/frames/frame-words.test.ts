import { describe, expect, it } from "vitest";
import { dateObsInstant, formatSkyAngle } from "./frame-words";

describe("frame words", () => {
  it("read DATE-OBS as UTC when it names no zone, as FITS writes it", () => {
    expect(dateObsInstant("2026-11-20T21:15:00")).toBe("2026-11-20T21:15:00.000Z");
    expect(dateObsInstant("2026-11-20T21:15:00.25")).toBe("2026-11-20T21:15:00.250Z");
    expect(dateObsInstant("2026-11-20T21:15:00+01:00")).toBe("2026-11-20T20:15:00.000Z");
    expect(dateObsInstant("2026-11-20")).toBe("2026-11-20T00:00:00.000Z");
    expect(dateObsInstant("20/11/26")).toBeNull();
    expect(dateObsInstant(null)).toBeNull();
  });

  it("write sky angles in the unit that reads best", () => {
    expect(formatSkyAngle(18)).toBe("18.0″");
    expect(formatSkyAngle(360)).toBe("6.0′");
    expect(formatSkyAngle(5_400)).toBe("1.50°");
    expect(formatSkyAngle(null)).toBe("—");
  });
});
