import type { FileHandle } from "node:fs/promises";

/**
 * A reader of FITS headers (FITS 4.0, section 4): 2880-byte blocks of 80-character cards, read
 * from a file a block at a time, never the data. It reads what Meridian needs to decide whether
 * a file is a frame it can analyse and to describe it; the image itself is left to
 * source-extractor and solve-field. Every way a file can be unreadable ends in `FrameUnreadable`
 * with the reason in words.
 */

const FITS_BLOCK = 2880;
const CARD = 80;
/** The contract's bounds on what is analysed. */
const MAX_HEADER_CARDS = 10_000;
const MAX_MEGAPIXELS = 100;
const SUPPORTED_BITPIX = new Set([8, 16, 32, -32, -64]);

export class FrameUnreadable extends Error {}

export type CardValue = string | number | boolean | null;

export interface FitsHeader {
  /** Keyword to value (the first card of a keyword wins; COMMENT, HISTORY and blank keywords are not kept). */
  cards: Map<string, CardValue>;
  /** How many cards it held, END included. */
  cardCount: number;
  /** Where its data begins, in bytes from the start of the file. */
  dataOffset: number;
}

/** `SIMPLE  =                    T` as the first card: what makes a file FITS, whatever its name. */
export function startsAsFits(firstBytes: Buffer): boolean {
  if (firstBytes.length < 30) return false;
  const card = firstBytes.subarray(0, CARD).toString("latin1");
  return /^SIMPLE {2}= +T(\s|\/|$)/.test(card);
}

/** A card's value: a quoted string (quotes doubled inside), a logical, an integer or a real; null when it has none. */
export function parseCardValue(text: string): CardValue {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("'")) {
    let value = "";
    for (let index = 1; index < trimmed.length; index += 1) {
      const char = trimmed[index]!;
      if (char !== "'") value += char;
      else if (trimmed[index + 1] === "'") {
        value += "'";
        index += 1;
      } else return value.trimEnd();
    }
    throw new FrameUnreadable("A header card holds a string without its closing quote");
  }
  const bare = trimmed.split("/")[0]!.trim();
  if (bare === "") return null;
  if (bare === "T" || bare === "F") return bare === "T";
  // Fortran's D exponent is FITS too.
  const number = Number(bare.replace(/[dD]/, "E"));
  return Number.isFinite(number) ? number : bare;
}

async function readBlock(handle: FileHandle, position: number, size: number): Promise<Buffer> {
  if (position + FITS_BLOCK > size) throw new FrameUnreadable("The header is truncated: the file ends before its END card");
  const block = Buffer.alloc(FITS_BLOCK);
  const { bytesRead } = await handle.read(block, 0, FITS_BLOCK, position);
  if (bytesRead < FITS_BLOCK) throw new FrameUnreadable("The header is truncated: the file ends before its END card");
  return block;
}

/** One header (HDU) starting at `offset`: its cards up to END, each printable ASCII as the standard asks. */
export async function readHeaderAt(options: { handle: FileHandle; offset: number; size: number }): Promise<FitsHeader> {
  const { handle, offset, size } = options;
  const cards = new Map<string, CardValue>();
  let cardCount = 0;
  for (let position = offset; ; position += FITS_BLOCK) {
    const block = await readBlock(handle, position, size);
    for (let start = 0; start < FITS_BLOCK; start += CARD) {
      const bytes = block.subarray(start, start + CARD);
      if (bytes.some((byte) => byte < 0x20 || byte > 0x7e)) throw new FrameUnreadable("The header is not FITS: a card holds bytes other than printable ASCII");
      cardCount += 1;
      if (cardCount > MAX_HEADER_CARDS) throw new FrameUnreadable(`The header holds more than ${MAX_HEADER_CARDS.toLocaleString("en")} cards`);
      const card = bytes.toString("latin1");
      const key = card.slice(0, 8).trimEnd();
      if (key === "END") return { cards, cardCount, dataOffset: position + FITS_BLOCK };
      if (!/^[A-Z0-9_-]*$/.test(key)) throw new FrameUnreadable(`The header is not FITS: "${key}" is not a keyword`);
      if (key === "" || key === "COMMENT" || key === "HISTORY" || key === "CONTINUE" || card.slice(8, 10) !== "= ") continue;
      if (!cards.has(key)) cards.set(key, parseCardValue(card.slice(10)));
    }
  }
}

const integerCard = (header: FitsHeader, key: string): number => {
  const value = header.cards.get(key);
  if (typeof value !== "number" || !Number.isInteger(value)) throw new FrameUnreadable(`The header's ${key} is missing or not an integer`);
  return value;
};

/** The bytes of an HDU's data (without its padding), from BITPIX, NAXISn, PCOUNT and GCOUNT. */
function dataBytes(header: FitsHeader): number {
  const bitpix = integerCard(header, "BITPIX");
  const axes = integerCard(header, "NAXIS");
  if (axes < 0 || axes > 999) throw new FrameUnreadable(`The header's NAXIS ${axes} is out of range`);
  if (axes === 0) return 0;
  let elements = 1;
  for (let axis = 1; axis <= axes; axis += 1) {
    const length = integerCard(header, `NAXIS${axis}`);
    if (length < 0) throw new FrameUnreadable(`The header's NAXIS${axis} is negative`);
    elements *= length;
  }
  const pcount = typeof header.cards.get("PCOUNT") === "number" ? (header.cards.get("PCOUNT") as number) : 0;
  const gcount = typeof header.cards.get("GCOUNT") === "number" ? (header.cards.get("GCOUNT") as number) : 1;
  return (Math.abs(bitpix) / 8) * gcount * (pcount + elements);
}

export interface FitsImage {
  header: FitsHeader;
  /** 0 for the primary HDU, 1 for the first extension. */
  hdu: number;
  width: number;
  height: number;
  bitpix: number;
}

/**
 * The frame's image: the primary HDU when it holds a 2-D image, else the first extension when that
 * is an IMAGE extension with one; null when the file is FITS but holds no 2-D image there (it is
 * then not a frame). Throws `FrameUnreadable` for a file that cannot be read: a bad or truncated
 * header, too many cards, an unsupported BITPIX, more than 100 megapixels, or data shorter than
 * the header says.
 */
export async function readFitsImage(handle: FileHandle): Promise<FitsImage | null> {
  const { size } = await handle.stat();
  const first = await readBlock(handle, 0, size);
  if (!startsAsFits(first)) throw new FrameUnreadable("The file is not FITS: its first card is not SIMPLE = T");
  const primary = await readHeaderAt({ handle, offset: 0, size });
  const primaryAxes = integerCard(primary, "NAXIS");
  if (primaryAxes === 2) return checkedImage(primary, 0, size);
  if (primaryAxes !== 0) return null;
  const extensionOffset = primary.dataOffset + Math.ceil(dataBytes(primary) / FITS_BLOCK) * FITS_BLOCK;
  if (extensionOffset >= size) return null;
  const extension = await readHeaderAt({ handle, offset: extensionOffset, size });
  if (extension.cards.get("XTENSION") !== "IMAGE" || integerCard(extension, "NAXIS") !== 2) return null;
  return checkedImage(extension, 1, size);
}

function checkedImage(header: FitsHeader, hdu: number, size: number): FitsImage {
  const bitpix = integerCard(header, "BITPIX");
  if (!SUPPORTED_BITPIX.has(bitpix)) throw new FrameUnreadable(`BITPIX ${bitpix} is not supported (8, 16, 32, -32 or -64)`);
  const width = integerCard(header, "NAXIS1");
  const height = integerCard(header, "NAXIS2");
  if (width < 1 || height < 1) throw new FrameUnreadable(`The image is empty (NAXIS1 ${width}, NAXIS2 ${height})`);
  if (width * height > MAX_MEGAPIXELS * 1_000_000)
    throw new FrameUnreadable(`The image has ${((width * height) / 1_000_000).toFixed(1)} megapixels, more than the ${MAX_MEGAPIXELS} analysed`);
  for (const key of ["BZERO", "BSCALE"]) {
    const value = header.cards.get(key);
    if (value !== undefined && (typeof value !== "number" || (key === "BSCALE" && value === 0)))
      throw new FrameUnreadable(`The header's ${key} is not a usable number`);
  }
  const needed = (width * height * Math.abs(bitpix)) / 8;
  const held = Math.max(0, size - header.dataOffset);
  if (held < needed)
    throw new FrameUnreadable(
      `The data is shorter than the header says: NAXIS1 × NAXIS2 × |BITPIX|/8 = ${needed.toLocaleString("en")} bytes, ` +
        `the file holds ${held.toLocaleString("en")}`,
    );
  return { header, hdu, width, height, bitpix };
}
