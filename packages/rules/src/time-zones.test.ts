import { describe, expect, it } from "vitest";
import { canonicalTimeZone, isTimeZone } from "./time-zones";

describe("time zone names", () => {
  it("takes IANA names as Intl writes them", () => {
    expect(canonicalTimeZone("Atlantic/Canary")).toBe("Atlantic/Canary");
    expect(canonicalTimeZone("europe/madrid")).toBe("Europe/Madrid");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("America/Argentina/San_Juan")).toBe("America/Argentina/San_Juan");
    expect(isTimeZone("Etc/GMT+5")).toBe(true);
  });

  it.each(["Mars/Olympus_Mons", "+01:00", "UTC+1", "", " Europe/Madrid", "Europe/Madrid/", "../etc"])("refuses %j", (name) => {
    expect(canonicalTimeZone(name)).toBeNull();
    expect(isTimeZone(name)).toBe(false);
  });
});
