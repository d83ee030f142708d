/** FITS writing (FITS 4.0): 2880-byte blocks of 80-character header cards, then big-endian data. */

const BLOCK = 2880;

export type CardValue = string | number | boolean;
export type Card = [key: string, value?: CardValue];

/** The most characters between a string value's quotes: a card is 80, `KEY     = ` and the two quotes take 12. */
const MAX_STRING_CHARACTERS = 68;

/** A string value in its quotes, cut to fit its card rather than losing its closing quote (which made the card unreadable). */
function quoted(value: string): string {
  let inside = value.replace(/'/g, "''").padEnd(8);
  if (inside.length > MAX_STRING_CHARACTERS) {
    inside = inside.slice(0, MAX_STRING_CHARACTERS);
    // An odd run of quotes at the end is half of an escaped one.
    if ((/'+$/.exec(inside)?.[0].length ?? 0) % 2 === 1) inside = inside.slice(0, -1);
  }
  return `'${inside}'`;
}

/** One card: strings quoted (quotes doubled), numbers and logicals right-aligned to column 30. */
function fitsCard([key, value]: Card): string {
  if (value === undefined) return key.padEnd(80).slice(0, 80);
  const text = typeof value === "string" ? quoted(value) : typeof value === "boolean" ? (value ? "T" : "F").padStart(20) : String(value).padStart(20);
  return `${key.padEnd(8)}= ${text}`.padEnd(80).slice(0, 80);
}

/** A header of cards (END added unless `end` is false) padded with spaces to whole blocks. */
export function fitsHeader(cards: Card[], options: { end?: boolean } = {}): Buffer {
  const text = [...cards.map(fitsCard), ...(options.end === false ? [] : ["END".padEnd(80)])].join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / BLOCK) * BLOCK), "latin1");
}

/** Writes 16-bit values for BZERO 32768 (unsigned 0–65535, rounded and clipped), big-endian, into `target` from `offset`. */
function writeData16(pixels: ArrayLike<number>, target: Buffer, offset: number) {
  for (let index = 0, at = offset; index < pixels.length; index += 1, at += 2) {
    // value - 32768 as two's complement is value with its top bit flipped: bytes written by hand, a frame has millions.
    const value = Math.max(0, Math.min(65535, Math.round(pixels[index]!))) ^ 0x8000;
    target[at] = value >>> 8;
    target[at + 1] = value & 0xff;
  }
}

const blocksFor = (bytes: number) => Math.ceil(bytes / BLOCK) * BLOCK;

/** 16-bit data for BZERO 32768, big-endian, padded to whole blocks. */
export function fitsData16(pixels: ArrayLike<number>): Buffer {
  const data = Buffer.alloc(blocksFor(pixels.length * 2));
  writeData16(pixels, data, 0);
  return data;
}

/**
 * A 16-bit image as a FITS file: in the primary HDU, or in a first IMAGE extension behind an
 * empty primary HDU, as some cameras write it. `cards` follow the structural ones.
 */
export function fitsImage(options: { width: number; height: number; pixels: ArrayLike<number>; cards?: Card[]; inExtension?: boolean }): Buffer {
  const axes: Card[] = [
    ["BITPIX", 16],
    ["NAXIS", 2],
    ["NAXIS1", options.width],
    ["NAXIS2", options.height],
  ];
  const scaling: Card[] = [
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
  // One buffer for the whole file: a large frame's data is written once, not copied again.
  const headerBytes = headers.reduce((sum, header) => sum + header.length, 0);
  const file = Buffer.alloc(headerBytes + blocksFor(options.pixels.length * 2));
  let offset = 0;
  for (const header of headers) offset += header.copy(file, offset);
  writeData16(options.pixels, file, offset);
  return file;
}

/** The cards of a header at the start of `bytes` (up to END), as text values or numbers: enough to read an index file's scale. */
export function readHeaderCards(bytes: Buffer): Map<string, string | number> {
  const cards = new Map<string, string | number>();
  for (let offset = 0; offset + 80 <= bytes.length; offset += 80) {
    const card = bytes.toString("latin1", offset, offset + 80);
    const key = card.slice(0, 8).trim();
    if (key === "END") break;
    if (card.slice(8, 10) !== "= " || cards.has(key)) continue;
    const raw = card.slice(10).trim();
    const quoted = /^'((?:[^']|'')*)'/.exec(raw);
    const value = quoted ? quoted[1]!.replace(/''/g, "'").trimEnd() : raw.split("/")[0]!.trim();
    const number = Number(value);
    cards.set(key, !quoted && value !== "" && Number.isFinite(number) ? number : value);
  }
  return cards;
}
