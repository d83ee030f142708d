import { describe, expect, it } from "vitest";
import { observatoryTimeZone, observatoryTiming, timeZoneAfter, timeZoneAt } from "./time-and-timing";

const laPalma = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const sidingSpring = { latitude: -31.2733, longitude: 149.0617, elevation: 1165 };

describe("an observatory's time zone", () => {
  it("is derived from its location, UTC without one", () => {
    expect(timeZoneAt({ location: laPalma })).toBe("Atlantic/Canary");
    expect(timeZoneAt({ location: sidingSpring })).toBe("Australia/Sydney");
    expect(timeZoneAt({ location: { latitude: 40.4168, longitude: -3.7038 } })).toBe("Europe/Madrid");
    expect(timeZoneAt({ location: null })).toBe("UTC");
  });

  it("reads a document from before zones were stored as a write would have set it", () => {
    expect(observatoryTimeZone({ doc: { location: laPalma } })).toBe("Atlantic/Canary");
    expect(observatoryTimeZone({ doc: { location: null } })).toBe("UTC");
    expect(observatoryTimeZone({ doc: { location: laPalma, timeZone: "Europe/Madrid" } })).toBe("Europe/Madrid");
  });

  it("follows a moved location unless a zone is given, and keeps a zone chosen by hand while the location stays", () => {
    const doc = { location: laPalma, timeZone: "Europe/Madrid" };
    expect(timeZoneAfter({ doc, given: undefined, location: undefined })).toBe("Europe/Madrid");
    expect(timeZoneAfter({ doc, given: undefined, location: { ...laPalma } })).toBe("Europe/Madrid");
    expect(timeZoneAfter({ doc, given: undefined, location: sidingSpring })).toBe("Australia/Sydney");
    expect(timeZoneAfter({ doc, given: "europe/london", location: sidingSpring })).toBe("Europe/London");
    expect(timeZoneAfter({ doc, given: null, location: undefined })).toBe("Atlantic/Canary");
    expect(timeZoneAfter({ doc, given: undefined, location: null })).toBe("UTC");
  });
});

describe("an observatory's timing settings", () => {
  it("fill each one it has not set with its default", () => {
    expect(observatoryTiming({ doc: {} })).toEqual({ slewSeconds: 120, readoutSeconds: 10 });
    expect(observatoryTiming({ doc: { settings: { readoutSeconds: 3 } } })).toEqual({ slewSeconds: 120, readoutSeconds: 3 });
    expect(observatoryTiming({ doc: { settings: { slewSeconds: 0, readoutSeconds: 0 } } })).toEqual({ slewSeconds: 0, readoutSeconds: 0 });
  });
});
