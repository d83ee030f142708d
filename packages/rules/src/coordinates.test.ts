import { describe, expect, it } from "vitest";
import {
  formatDeclination,
  formatDeclinationDegrees,
  formatRightAscension,
  formatRightAscensionDegrees,
  parseDeclination,
  parseGeographicDegrees,
  parseRightAscension,
  type AngleResult,
} from "./coordinates";

const ARCSECOND = 1 / 3600;
/** 0.01″ in degrees: how close a round trip must come back. */
const ROUND_TRIP = 0.01 * ARCSECOND;

function degreesOf(result: AngleResult): number {
  if (!result.ok) throw new Error(`expected a value, got “${result.message}”`);
  return result.degrees;
}

function messageOf(result: AngleResult): string {
  if (result.ok) throw new Error(`expected a refusal, got ${result.degrees}`);
  return result.message;
}

/** A small seeded generator (mulberry32), so a failing value can be reproduced. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const raOf = (h: number, m: number, s: number) => (h + m / 60 + s / 3600) * 15;
const decOf = (sign: 1 | -1, d: number, m: number, s: number) => sign * (d + m / 60 + s / 3600);

describe("parseRightAscension", () => {
  it.each([
    ["08:40:24", raOf(8, 40, 24)],
    ["8:40:24", raOf(8, 40, 24)],
    ["8h40m24s", raOf(8, 40, 24)],
    ["8h 40m 24.5s", raOf(8, 40, 24.5)],
    ["8H 40M 24.5S", raOf(8, 40, 24.5)],
    ["8ʰ40ᵐ24ˢ", raOf(8, 40, 24)],
    ["08 40 24", raOf(8, 40, 24)],
    ["  08   40   24.25  ", raOf(8, 40, 24.25)],
    ["08 : 40 : 24", raOf(8, 40, 24)],
    ["8:40.5", raOf(8, 40.5, 0)],
    ["8h 40.5m", raOf(8, 40.5, 0)],
    ["8h", raOf(8, 0, 0)],
    ["8.5h", raOf(8.5, 0, 0)],
    ["8h 24s", raOf(8, 0, 24)],
    ["+08:40:24", raOf(8, 40, 24)],
    ["00:00:00", 0],
    ["23:59:59.999", raOf(23, 59, 59.999)],
    ["23:59:59,5", raOf(23, 59, 59.5)],
    ["130.1", 130.1],
    ["130.1°", 130.1],
    ["130.1 deg", 130.1],
    ["0", 0],
    [".5", 0.5],
    ["359.999999", 359.999999],
  ])("reads %j", (text, expected) => {
    expect(degreesOf(parseRightAscension(text))).toBeCloseTo(expected, 10);
  });

  it.each([
    ["24:00:00", "RA must be less than 24h."],
    ["24h", "RA must be less than 24h."],
    ["25 00 00", "RA must be less than 24h."],
    ["23:59:60", "RA must have seconds below 60."],
    ["23:60:00", "RA must have minutes below 60."],
    ["8h 61m", "RA must have minutes below 60."],
    ["8.5:30:00", "RA may have decimals only in its last part."],
    ["8:30.5:10", "RA may have decimals only in its last part."],
    ["360", "RA must be less than 360°."],
    ["400.5", "RA must be less than 360°."],
    ["-10", "RA must not be negative."],
    ["-00:30:00", "RA must not be negative."],
    ["", "RA is required."],
    ["   ", "RA is required."],
  ])("refuses %j: %s", (text, message) => {
    expect(messageOf(parseRightAscension(text))).toBe(message);
  });

  it.each(["abc", "8h40m24s extra", "8:40:24:10", "1e3", "8m 40h", "8 h 40 d", "NaN", "Infinity", "+", "8::40", "08:40:24\n12"])(
    "says what it expects for %j",
    (text) => {
      expect(messageOf(parseRightAscension(text))).toBe("RA must be hours, minutes and seconds such as 08:40:24 or 8h 40m 24s, or degrees such as 130.1.");
    },
  );

  it("labels the message with the field's path, as the API does", () => {
    expect(messageOf(parseRightAscension("25:00:00", { path: ["targets", 0, "ra"] }))).toBe("RA (target 1) must be less than 24h.");
  });
});

describe("parseDeclination", () => {
  it.each([
    ["+19:40:12", decOf(1, 19, 40, 12)],
    ["19:40:12", decOf(1, 19, 40, 12)],
    ["19d40m12s", decOf(1, 19, 40, 12)],
    ["19d 40m 12.5s", decOf(1, 19, 40, 12.5)],
    [`-05°23'28"`, decOf(-1, 5, 23, 28)],
    ["−05° 23′ 28″", decOf(-1, 5, 23, 28)],
    ["-05º23'28''", decOf(-1, 5, 23, 28)],
    ["19 40 12", decOf(1, 19, 40, 12)],
    ["- 19 40 12", decOf(-1, 19, 40, 12)],
    ["19:40", decOf(1, 19, 40, 0)],
    ["19° 40.2′", decOf(1, 19, 40.2, 0)],
    ["19.67", 19.67],
    ["-19.67°", -19.67],
    ["19.67d", 19.67],
    ["+90", 90],
    ["-90", -90],
    ["90:00:00", 90],
    ["-90 00 00.0", -90],
    ["0", 0],
    ["-0", 0],
    ["-00:30:00", -0.5],
    ["-0:00:01", -ARCSECOND],
    ["-00 00 59.999", decOf(-1, 0, 0, 59.999)],
  ])("reads %j", (text, expected) => {
    const degrees = degreesOf(parseDeclination(text));
    expect(degrees).toBeCloseTo(expected, 10);
    expect(Math.sign(degrees)).toBe(Math.sign(expected));
  });

  it("keeps the sign of a declination under one degree (−00:30:00 is −0.5°, not +0.5°)", () => {
    expect(degreesOf(parseDeclination("-00:30:00"))).toBe(-0.5);
    expect(degreesOf(parseDeclination("-0d30m"))).toBe(-0.5);
    expect(degreesOf(parseDeclination("-00 30 00"))).toBe(-0.5);
    expect(degreesOf(parseDeclination("−0° 30′"))).toBe(-0.5);
  });

  it.each([
    ["90:00:01", "Dec must be between -90° and +90°."],
    ["-90:00:01", "Dec must be between -90° and +90°."],
    ["90.0001", "Dec must be between -90° and +90°."],
    ["91", "Dec must be between -90° and +90°."],
    ["19:60:00", "Dec must have minutes below 60."],
    ["19:40:60", "Dec must have seconds below 60."],
    ["19.5:40:12", "Dec may have decimals only in its last part."],
    ["", "Dec is required."],
  ])("refuses %j: %s", (text, message) => {
    expect(messageOf(parseDeclination(text))).toBe(message);
  });

  it.each(["north", "19d40m12s5", "19:40:12:00", "+-19", "19h40m", "--5"])("says what it expects for %j", (text) => {
    expect(messageOf(parseDeclination(text))).toBe("Dec must be degrees, minutes and seconds such as +19:40:12 or 19° 40′ 12″, or degrees such as 19.67.");
  });
});

describe("parseGeographicDegrees", () => {
  const latitude = (text: string) => parseGeographicDegrees(text, { path: ["location", "latitude"], axis: "latitude" });
  const longitude = (text: string) => parseGeographicDegrees(text, { path: ["location", "longitude"], axis: "longitude" });

  it("reads an observatory's latitude and longitude in the notations the target fields accept", () => {
    const cerroPachon = decOf(-1, 30, 31, 36);
    for (const text of ["-30:31:36", "-30 31 36", "-30°31′36″", "−30° 31' 36\"", "-30d31m36s", "-30:31.6"])
      expect(degreesOf(latitude(text))).toBeCloseTo(cerroPachon, 9);
    expect(degreesOf(latitude("-30.5267"))).toBe(-30.5267);
    expect(degreesOf(latitude("28.76"))).toBe(28.76);
    expect(degreesOf(longitude("-70 44 12"))).toBeCloseTo(decOf(-1, 70, 44, 12), 9);
    // Past a declination's ±90: a longitude's range is the form's to check, not the notation's.
    expect(degreesOf(longitude("-170:44:12"))).toBeCloseTo(decOf(-1, 170, 44, 12), 9);
  });

  it("says what it accepts, naming the field by its label", () => {
    expect(messageOf(latitude("north"))).toBe(
      "Latitude must be degrees such as -30.5267, or degrees, minutes and seconds such as -30:31:36, -30 31 36 or -30° 31′ 36″.",
    );
    expect(messageOf(longitude("-70:61:00"))).toBe("Longitude must have minutes below 60.");
    expect(messageOf(latitude(" "))).toBe("Latitude is required.");
  });
});

describe("formatting", () => {
  it("writes right ascension as hours, minutes and seconds, and as degrees", () => {
    expect(formatRightAscension(raOf(8, 40, 24))).toBe("08h 40m 24.0s");
    expect(formatRightAscension(0)).toBe("00h 00m 00.0s");
    expect(formatRightAscension(raOf(5, 35, 16.48), { decimals: 2 })).toBe("05h 35m 16.48s");
    expect(formatRightAscension(raOf(5, 35, 16.48), { decimals: 0 })).toBe("05h 35m 16s");
    expect(formatRightAscensionDegrees(130.1)).toBe("130.100000°");
    expect(formatRightAscensionDegrees(130.1, { decimals: 2 })).toBe("130.10°");
  });

  it("carries a rounded 60 into the next unit, and 24h back to 0h", () => {
    expect(formatRightAscension(raOf(8, 40, 59.96))).toBe("08h 41m 00.0s");
    expect(formatRightAscension(raOf(8, 59, 59.96))).toBe("09h 00m 00.0s");
    expect(formatRightAscension(raOf(23, 59, 59.96))).toBe("00h 00m 00.0s");
    expect(formatRightAscensionDegrees(359.9999999)).toBe("0.000000°");
    expect(formatDeclination(decOf(1, 19, 40, 59.6))).toBe("+19° 41′ 00″");
    expect(formatDeclination(decOf(-1, 89, 59, 59.6))).toBe("-90° 00′ 00″");
  });

  it("writes declination as signed degrees, minutes and seconds, and as signed degrees", () => {
    expect(formatDeclination(decOf(1, 19, 40, 12))).toBe("+19° 40′ 12″");
    expect(formatDeclination(decOf(-1, 5, 23, 28))).toBe("-05° 23′ 28″");
    expect(formatDeclination(-0.5)).toBe("-00° 30′ 00″");
    expect(formatDeclination(90)).toBe("+90° 00′ 00″");
    expect(formatDeclination(-90)).toBe("-90° 00′ 00″");
    expect(formatDeclination(decOf(1, 19, 40, 12.346), { decimals: 2 })).toBe("+19° 40′ 12.35″");
    expect(formatDeclination(-0.0000001)).toBe("+00° 00′ 00″");
    expect(formatDeclinationDegrees(19.67)).toBe("+19.670000°");
    expect(formatDeclinationDegrees(-5.391)).toBe("-5.391000°");
    expect(formatDeclinationDegrees(-0.0000000001)).toBe("+0.000000°");
  });

  it("refuses what is not an angle of its kind", () => {
    expect(() => formatRightAscension(Number.NaN)).toThrow(RangeError);
    expect(() => formatDeclination(90.5)).toThrow(RangeError);
    expect(() => formatDeclinationDegrees(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatRightAscension(10, { decimals: 1.5 })).toThrow(RangeError);
  });

  it("normalizes a right ascension outside 0..360", () => {
    expect(formatRightAscension(-15)).toBe("23h 00m 00.0s");
    expect(formatRightAscension(375)).toBe("01h 00m 00.0s");
  });
});

describe("round trips", () => {
  const next = random(20261124);
  const rightAscensions = [0, 1e-9, 15, 90, 180, 359.99, 359.999999, raOf(23, 59, 59.999), ...Array.from({ length: 5000 }, () => next() * 360)];
  const declinations = [0, -0.5, 0.5, -ARCSECOND, 90, -90, 89.9999, -89.9999, ...Array.from({ length: 5000 }, () => next() * 180 - 90)];

  it("reads back every right ascension it writes, within 0.01″", () => {
    for (const ra of rightAscensions) {
      const fromHms = degreesOf(parseRightAscension(formatRightAscension(ra, { decimals: 4 })));
      const fromDegrees = degreesOf(parseRightAscension(formatRightAscensionDegrees(ra)));
      for (const back of [fromHms, fromDegrees]) {
        // 359.9999999° may come back as 0°: the same direction on the sky.
        const difference = Math.abs(back - ra);
        expect(Math.min(difference, 360 - difference), `ra ${ra}`).toBeLessThan(ROUND_TRIP);
      }
    }
  });

  it("reads back every declination it writes, within 0.01″, sign included", () => {
    for (const dec of declinations) {
      for (const text of [formatDeclination(dec, { decimals: 2 }), formatDeclinationDegrees(dec)]) {
        const back = degreesOf(parseDeclination(text));
        expect(Math.abs(back - dec), `dec ${dec} as ${text}`).toBeLessThan(ROUND_TRIP);
      }
    }
  });

  it("reads back the default display forms within their precision (0.05s, 0.5″)", () => {
    for (const ra of rightAscensions) {
      const back = degreesOf(parseRightAscension(formatRightAscension(ra)));
      const difference = Math.abs(back - ra);
      expect(Math.min(difference, 360 - difference)).toBeLessThanOrEqual((0.05 / 3600) * 15 + 1e-12);
    }
    for (const dec of declinations) {
      const back = degreesOf(parseDeclination(formatDeclination(dec)));
      expect(Math.abs(back - dec)).toBeLessThanOrEqual(0.5 * ARCSECOND + 1e-12);
    }
  });

  it("reads every spelling of the same sexagesimal value alike", () => {
    const pick = random(7);
    for (let i = 0; i < 2000; i += 1) {
      const [h, m, s] = [Math.floor(pick() * 24), Math.floor(pick() * 60), Math.floor(pick() * 60000) / 1000];
      const expected = raOf(h, m, s);
      const spellings = [
        `${h}:${m}:${s}`,
        `${h}h${m}m${s}s`,
        `${h}h ${m}m ${s}s`,
        `${h} ${m} ${s}`,
        `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${s}`,
      ];
      for (const text of spellings) expect(degreesOf(parseRightAscension(text)), text).toBeCloseTo(expected, 9);

      const sign = pick() < 0.5 ? -1 : 1;
      const [d, dm, ds] = [Math.floor(pick() * 90), Math.floor(pick() * 60), Math.floor(pick() * 60000) / 1000];
      const dec = decOf(sign, d, dm, ds);
      const signText = sign < 0 ? "-" : "+";
      const decSpellings = [
        `${signText}${d}:${dm}:${ds}`,
        `${signText}${d}d${dm}m${ds}s`,
        `${signText}${d}°${dm}'${ds}"`,
        `${signText}${d} ${dm} ${ds}`,
        `${signText}${d}° ${dm}′ ${ds}″`,
      ];
      for (const text of decSpellings) {
        const back = degreesOf(parseDeclination(text));
        expect(back, text).toBeCloseTo(dec, 9);
        if (dec !== 0) expect(Math.sign(back), text).toBe(sign);
      }
    }
  });

  it("refuses every seconds or minutes value from 60 up, and accepts every one just below", () => {
    for (let tenths = 0; tenths < 600; tenths += 1) {
      const value = (tenths / 10).toFixed(1);
      expect(parseRightAscension(`10:20:${value}`).ok).toBe(true);
      expect(parseDeclination(`-10:${value}`).ok).toBe(true);
    }
    for (const value of ["59.999", "59.9999999"]) {
      expect(parseRightAscension(`10:20:${value}`).ok).toBe(true);
      expect(parseDeclination(`10:59:${value}`).ok).toBe(true);
    }
    for (const value of ["60", "60.0", "60.001", "61", "99", "120"]) {
      expect(parseRightAscension(`10:20:${value}`).ok).toBe(false);
      expect(parseRightAscension(`10:${value}:00`).ok).toBe(false);
      expect(parseDeclination(`10:20:${value}`).ok).toBe(false);
      expect(parseDeclination(`10:${value}`).ok).toBe(false);
    }
  });
});
