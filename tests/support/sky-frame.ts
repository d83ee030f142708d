import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const BLOCK = 2880;

export type CardValue = string | number | boolean;

/** One 80-character header card: strings quoted (quotes doubled), numbers and logicals right-aligned to column 30. */
function fitsCard(key: string, value?: CardValue): string {
  if (value === undefined) return key.padEnd(80).slice(0, 80);
  const text =
    typeof value === "string"
      ? `'${value.replace(/'/g, "''").padEnd(8)}'`
      : typeof value === "boolean"
        ? (value ? "T" : "F").padStart(20)
        : String(value).padStart(20);
  return `${key.padEnd(8)}= ${text}`.padEnd(80).slice(0, 80);
}

/** A header of cards (END added unless `end` is false) padded to whole 2880-byte blocks. */
export function fitsHeader(cards: Array<[string, CardValue?]>, options: { end?: boolean } = {}): Buffer {
  const text = [...cards.map(([key, value]) => fitsCard(key, value)), ...(options.end === false ? [] : ["END".padEnd(80)])].join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / BLOCK) * BLOCK), "latin1");
}

/** A 16-bit image's data (BZERO 32768: unsigned values), big-endian and padded to whole blocks. */
export function fitsData16(pixels: Float64Array): Buffer {
  const data = Buffer.alloc(Math.ceil((pixels.length * 2) / BLOCK) * BLOCK);
  for (let index = 0; index < pixels.length; index += 1) data.writeInt16BE(Math.max(0, Math.min(65535, Math.round(pixels[index]!))) - 32768, index * 2);
  return data;
}

/** Small, seeded and good enough for noise: mulberry32. */
function randomFrom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SkyFrameOptions {
  /** Where the frame's centre points, J2000 degrees. */
  ra: number;
  dec: number;
  /** Arcseconds per pixel. */
  scaleArcsec: number;
  /** The position angle of the image's +y axis (rows upward), degrees east of north. */
  rotationDeg: number;
  /** The stars' full width at half maximum, in pixels (Gaussian profiles). */
  fwhmPixels: number;
  width?: number;
  height?: number;
  /** The catalog to draw from: an astrometry.net index file (Debian's Tycho-2). */
  indexFile: string;
  seed?: number;
  /** More header cards (OBJECT, FILTER, EXPTIME…). */
  cards?: Array<[string, CardValue?]>;
  /** The image in a first IMAGE extension behind an empty primary HDU, as some cameras write it. */
  inExtension?: boolean;
}

const toRad = Math.PI / 180;

/** The catalog's stars around a point: astrometry.net's own `query-starkd`, RA, Dec and V magnitude. */
async function catalogStars(options: { indexFile: string; ra: number; dec: number; radius: number }) {
  const { stdout } = await run("query-starkd", ["-r", String(options.ra), "-d", String(options.dec), "-R", String(options.radius), "-T", options.indexFile], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split("\n")
    .filter((line) => /^-?\d/.test(line.trim()))
    .map((line) => line.split(",").map((part) => Number(part.trim())))
    .map(([ra, dec, magnitude]) => ({ ra: ra!, dec: dec!, magnitude: Number.isFinite(magnitude) ? magnitude! : 11 }));
}

/**
 * A frame of real sky for tests: the stars of an astrometry.net index around the pointing,
 * projected (gnomonic) at the given scale and rotation with east left of north as a camera sees
 * it, drawn as Gaussians of the given seeing over a background of 1,000 ADU with noise, written as
 * a 16-bit FITS image with the given header cards. Answers the bytes and the stars drawn.
 */
export async function renderSkyFrame(options: SkyFrameOptions): Promise<{ bytes: Buffer; stars: number }> {
  const width = options.width ?? 1024;
  const height = options.height ?? 1024;
  const scaleDeg = options.scaleArcsec / 3600;
  const radius = (Math.hypot(width, height) / 2) * scaleDeg;
  const stars = await catalogStars({ indexFile: options.indexFile, ra: options.ra, dec: options.dec, radius });
  const [ra0, dec0, theta] = [options.ra * toRad, options.dec * toRad, options.rotationDeg * toRad];
  const placed: Array<{ x: number; y: number; peak: number }> = [];
  for (const star of stars) {
    const [ra, dec] = [star.ra * toRad, star.dec * toRad];
    const cosC = Math.sin(dec0) * Math.sin(dec) + Math.cos(dec0) * Math.cos(dec) * Math.cos(ra - ra0);
    if (cosC <= 0) continue;
    // Standard coordinates in degrees: xi toward the east, eta toward the north.
    const xi = (Math.cos(dec) * Math.sin(ra - ra0)) / cosC / toRad;
    const eta = (Math.cos(dec0) * Math.sin(dec) - Math.sin(dec0) * Math.cos(dec) * Math.cos(ra - ra0)) / cosC / toRad;
    // +y points at position angle theta; +x at theta - 90° (east to the left when north is up).
    const dx = (-xi * Math.cos(theta) + eta * Math.sin(theta)) / scaleDeg;
    const dy = (xi * Math.sin(theta) + eta * Math.cos(theta)) / scaleDeg;
    // FITS pixel centres are 1..N; the frame's centre is at (N + 1) / 2; arrays count from 0.
    placed.push({ x: (width - 1) / 2 + dx, y: (height - 1) / 2 + dy, peak: Math.min(40_000, 25_000 * 10 ** (-0.4 * (star.magnitude - 9))) });
  }
  return renderStarField({
    width,
    height,
    fwhmPixels: options.fwhmPixels,
    stars: placed,
    seed: options.seed,
    cards: options.cards,
    inExtension: options.inExtension,
  });
}

/**
 * Stars at given pixel positions (0-based) drawn as Gaussians over a background of 1,000 ADU with
 * read and photon noise, as a 16-bit FITS image. Answers the bytes and how many stars fell inside.
 */
function renderStarField(options: {
  width: number;
  height: number;
  fwhmPixels: number;
  stars: Array<{ x: number; y: number; peak: number }>;
  seed?: number;
  cards?: Array<[string, CardValue?]>;
  inExtension?: boolean;
}): { bytes: Buffer; stars: number } {
  const { width, height } = options;
  const random = randomFrom(options.seed ?? 1);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const pixels = new Float64Array(width * height);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = 1000 + 12 * gaussian();
  const sigma = options.fwhmPixels / (2 * Math.sqrt(2 * Math.log(2)));
  const reach = Math.ceil(5 * sigma);
  let drawn = 0;
  for (const { x, y, peak } of options.stars) {
    if (x < -reach || y < -reach || x > width + reach || y > height + reach) continue;
    for (let row = Math.max(0, Math.floor(y - reach)); row <= Math.min(height - 1, Math.ceil(y + reach)); row += 1)
      for (let column = Math.max(0, Math.floor(x - reach)); column <= Math.min(width - 1, Math.ceil(x + reach)); column += 1)
        pixels[row * width + column]! += peak * Math.exp(-((column - x) ** 2 + (row - y) ** 2) / (2 * sigma * sigma));
    if (x >= 0 && y >= 0 && x < width && y < height) drawn += 1;
  }
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = pixels[index]! + Math.sqrt(Math.max(0, pixels[index]! - 1000)) * gaussian();
  const axes: Array<[string, CardValue]> = [
    ["BITPIX", 16],
    ["NAXIS", 2],
    ["NAXIS1", width],
    ["NAXIS2", height],
  ];
  const scaling: Array<[string, CardValue]> = [
    ["BZERO", 32768],
    ["BSCALE", 1],
  ];
  const headers = options.inExtension
    ? [
        fitsHeader([
          ["SIMPLE", true],
          ["BITPIX", 8],
          ["NAXIS", 0],
          ["EXTEND", true],
        ]),
        fitsHeader([["XTENSION", "IMAGE"], ...axes, ["PCOUNT", 0], ["GCOUNT", 1], ...scaling, ...(options.cards ?? [])]),
      ]
    : [fitsHeader([["SIMPLE", true], ...axes, ...scaling, ...(options.cards ?? [])])];
  return { bytes: Buffer.concat([...headers, fitsData16(pixels)]), stars: drawn };
}

/** A field of `count` stars at random places: sky that matches no catalog, which a blind solver searches long for. */
export function renderRandomStars(options: {
  width: number;
  height: number;
  count: number;
  fwhmPixels: number;
  seed?: number;
  cards?: Array<[string, CardValue?]>;
}) {
  const random = randomFrom((options.seed ?? 7) + 1);
  const stars = Array.from({ length: options.count }, () => ({
    x: random() * options.width,
    y: random() * options.height,
    peak: 500 + 20_000 * random() ** 3,
  }));
  return renderStarField({ width: options.width, height: options.height, fwhmPixels: options.fwhmPixels, stars, seed: options.seed, cards: options.cards });
}

/** The densest Tycho-2 index Debian installs in a folder (index-tycho2-10, else the lowest number there). */
export async function densestIndexFile(catalogDir: string): Promise<string> {
  const names = (await fs.readdir(catalogDir)).filter((name) => /^index-.*\.fits$/.test(name)).sort();
  if (names.length === 0) throw new Error(`no astrometry.net index files in ${catalogDir}`);
  return path.join(catalogDir, names[0]!);
}
