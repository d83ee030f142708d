import { describe, expect, it } from "vitest";
import { fitsImage } from "./fits";
import { projectStars, renderStarField, SKY_ADU } from "./render";

const field = { width: 96, height: 64, fwhmPixels: 3, seed: 11 };
const star = { x: 40.3, y: 30.7, flux: 200_000 };

/** The flux-weighted centre and second moments of the light above the sky within `radius` of a point. */
function moments(pixels: Float32Array, width: number, around: { x: number; y: number }, radius: number) {
  let [sum, sx, sy] = [0, 0, 0];
  const light: Array<[number, number, number]> = [];
  for (let y = Math.ceil(around.y - radius); y <= around.y + radius; y += 1)
    for (let x = Math.ceil(around.x - radius); x <= around.x + radius; x += 1) {
      const value = pixels[y * width + x]! - SKY_ADU;
      light.push([x, y, value]);
      [sum, sx, sy] = [sum + value, sx + value * x, sy + value * y];
    }
  const [cx, cy] = [sx / sum, sy / sum];
  const second = (f: (x: number, y: number) => number) => light.reduce((total, [x, y, value]) => total + value * f(x - cx, y - cy), 0) / sum;
  return { sum, cx, cy, xx: second((x) => x * x), yy: second((_, y) => y * y) };
}

describe("the star field renderer", () => {
  it("draws the same pixels from the same seed, and other noise from another", () => {
    const first = renderStarField({ ...field, stars: [star] });
    expect(renderStarField({ ...field, stars: [star] }).pixels).toEqual(first.pixels);
    expect(renderStarField({ ...field, seed: 12, stars: [star] }).pixels).not.toEqual(first.pixels);
    expect(first.drawn).toBe(1);
  });

  it("touches only a stamp of five sigmas around each star", () => {
    const empty = renderStarField({ ...field, stars: [] }).pixels;
    const { pixels } = renderStarField({ ...field, stars: [star] });
    const reach = Math.ceil((5 * 3) / 2.3548);
    for (let y = 0; y < field.height; y += 1)
      for (let x = 0; x < field.width; x += 1) {
        const index = y * field.width + x;
        if (Math.abs(x - star.x) > reach + 1 || Math.abs(y - star.y) > reach + 1) expect(pixels[index]).toBe(empty[index]);
      }
    // Read noise of 12 ADU over the sky's 1,000.
    const mean = empty.reduce((sum, value) => sum + value, 0) / empty.length;
    const spread = Math.sqrt(empty.reduce((sum, value) => sum + (value - mean) ** 2, 0) / empty.length);
    expect(Math.abs(mean - SKY_ADU)).toBeLessThan(1);
    expect(Math.abs(spread - 12)).toBeLessThan(1);
  });

  it("draws a star's light where it is, with the seeing's width, and smears it along a trail", () => {
    const sigma = 3 / 2.3548;
    const round = moments(renderStarField({ ...field, stars: [star] }).pixels, field.width, star, 9);
    expect(round.cx).toBeCloseTo(star.x, 1);
    expect(round.cy).toBeCloseTo(star.y, 1);
    expect(Math.abs(round.sum / star.flux - 1)).toBeLessThan(0.02);
    expect(Math.abs(Math.sqrt(round.xx) / sigma - 1)).toBeLessThan(0.05);
    expect(Math.abs(Math.sqrt(round.yy) / sigma - 1)).toBeLessThan(0.05);
    // A trail of 8 pixels along the rows: the variance along it grows by 8² / 12, across it not at all.
    // Brighter, so that the wider window's noise weighs as little.
    const bright = { ...star, flux: 800_000 };
    const trailed = moments(renderStarField({ ...field, stars: [bright], trail: { lengthPixels: 8, angleDeg: 0 } }).pixels, field.width, bright, 14);
    expect(Math.abs(trailed.xx / (sigma * sigma + 64 / 12) - 1)).toBeLessThan(0.05);
    expect(Math.abs(Math.sqrt(trailed.yy) / sigma - 1)).toBeLessThan(0.05);
  });

  it("lays a cloud's glow over the sky, brighter toward its angle", () => {
    const { pixels } = renderStarField({ ...field, stars: [], glow: { adu: 6000, slope: 0.4, angleDeg: 0 } });
    const columnMean = (x: number) =>
      Array.from({ length: field.height }, (_, y) => pixels[y * field.width + x]!).reduce((sum, value) => sum + value, 0) / field.height;
    expect(columnMean(field.width / 2)).toBeGreaterThan(SKY_ADU + 5800);
    expect(columnMean(field.width - 1)).toBeGreaterThan(columnMean(0) + 1800);
  });

  it("projects the sky as a camera sees it: north up, east left, at the scale", () => {
    const centre = { ra: 100, dec: 20 };
    const [north, east] = projectStars({
      stars: [
        { ra: 100, dec: 20 + 60 / 3600, magnitude: 9 },
        { ra: 100 + 60 / 3600 / Math.cos((20 * Math.PI) / 180), dec: 20, magnitude: 9 },
      ],
      centre,
      scaleArcsec: 2,
      rotationDeg: 0,
      width: 101,
      height: 101,
    });
    expect(north!.x).toBeCloseTo(50, 3);
    expect(north!.y).toBeCloseTo(80, 2);
    expect(east!.x).toBeCloseTo(20, 2);
    expect(east!.y).toBeCloseTo(50, 2);
    expect(north!.flux).toBe(290_000);
  });

  it("writes a 16-bit FITS image whose header is whole 2880-byte blocks and whose values are offset by BZERO", () => {
    const bytes = fitsImage({ width: 3, height: 2, pixels: Float32Array.from([0, 1, 32768, 65535, 70000, -5]), cards: [["OBJECT", "it's M 1"]] });
    expect(bytes.length).toBe(2 * 2880);
    const header = bytes.toString("latin1", 0, 2880);
    expect(header.slice(0, 80)).toBe(`SIMPLE  = ${"T".padStart(20)}`.padEnd(80));
    expect(header).toContain(`OBJECT  = 'it''s M 1'`);
    expect(header).toMatch(/BITPIX {2}= {19}16 /);
    const values = Array.from({ length: 6 }, (_, index) => bytes.readInt16BE(2880 + index * 2) + 32768);
    expect(values).toEqual([0, 1, 32768, 65535, 65535, 0]);
  });
});
