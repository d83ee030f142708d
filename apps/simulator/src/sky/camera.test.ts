import { describe, expect, it } from "vitest";
import { indexForField, type StarIndex } from "./catalog";
import { offsetPoint, opticsOf, sexagesimal, skyEquipment } from "./camera";

const RADIANS = Math.PI / 180;
const separationDeg = (a: { ra: number; dec: number }, b: { ra: number; dec: number }) =>
  Math.acos(
    Math.min(
      1,
      Math.sin(a.dec * RADIANS) * Math.sin(b.dec * RADIANS) + Math.cos(a.dec * RADIANS) * Math.cos(b.dec * RADIANS) * Math.cos((a.ra - b.ra) * RADIANS),
    ),
  ) / RADIANS;

describe("the sky camera's geometry and cards", () => {
  it("moves a pointing by the distance asked, toward the position angle asked", () => {
    const from = { ra: 359.9, dec: 62 };
    for (const angle of [0, 45, 90, 200, 300]) expect(separationDeg(from, offsetPoint(from, 0.25, angle)) * 3600).toBeCloseTo(900, 3);
    expect(offsetPoint(from, 0.25, 0).dec).toBeCloseTo(62.25, 9);
    // East is toward greater RA, across 0 h.
    expect(offsetPoint(from, 0.25, 90).ra).toBeGreaterThan(0);
    expect(offsetPoint(from, 0.25, 90).ra).toBeLessThan(1);
  });

  it("writes OBJCTRA and OBJCTDEC as cameras do, carrying rounded seconds", () => {
    expect(sexagesimal(56.75, { hours: true })).toBe("03 47 00.00");
    expect(sexagesimal(-5.3911, { hours: false })).toBe("-05 23 28.0");
    expect(sexagesimal(24.1167, { hours: false })).toBe("+24 07 00.1");
    expect(sexagesimal(10.99999999, { hours: false })).toBe("+11 00 00.0");
    expect(sexagesimal(0, { hours: true })).toBe("00 00 00.00");
  });

  it("draws from the densest index whose quads are at least a tenth of the field", () => {
    // Debian's Tycho-2 indexes 4110–4114: quads from 1° up, each √2 wider than the last.
    const indexes: StarIndex[] = [0, 1, 2, 3, 4].map((step) => ({
      indexId: 4110 + step,
      quadLowDeg: Math.SQRT2 ** step,
      quadHighDeg: Math.SQRT2 ** (step + 1),
      files: [`index-tycho2-1${step}.fits`],
    }));
    expect(indexForField(indexes, 1.7).indexId).toBe(4110);
    expect(indexForField(indexes, 0.3).indexId).toBe(4110);
    expect(indexForField(indexes, 20).indexId).toBe(4112);
    expect(indexForField(indexes, 90).indexId).toBe(4114);
  });

  it("reports its optics and their pixel scale, keeping what the equipment names", () => {
    expect(skyEquipment({ mount: "Fork", focalLengthMm: 1000 })).toEqual({
      mount: "Fork",
      camera: "Simulated CCD 2048",
      telescope: "Simulated 500 mm telescope",
      pixelSizeMicrons: 7.4,
      focalLengthMm: 1000,
      sensorWidthPixels: 2048,
      sensorHeightPixels: 2048,
      pixelScaleArcsec: 1.5264,
    });
    expect(opticsOf({ pixelSizeMicrons: -3, sensorWidthPixels: 10.5, camera: " " })).toMatchObject({
      pixelSizeMicrons: 7.4,
      sensorWidthPixels: 2048,
      camera: "Simulated CCD 2048",
    });
  });
});
