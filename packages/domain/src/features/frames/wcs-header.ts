import { Readable } from "node:stream";
import type { FrameSolution } from "@meridian/rules/frames";
import { parseCardValue, type CardValue } from "./fits-header";

const BLOCK = 2880;
const CARD = 80;
/** The contract's bound on a frame's cards, in blocks: a header longer than that is not read into memory. */
const MAX_HEADER_BLOCKS = Math.ceil((10_000 * CARD) / BLOCK);
const rad = Math.PI / 180;

/**
 * The cards of a celestial WCS (FITS 4.0 section 8, and the SIP distortion astrometry.net writes)
 * and MERIDOBS: a frame's own are replaced by the solution's, so that no reader mixes the two.
 */
const REPLACED_KEYS = [
  /^(?:CTYPE|CRVAL|CRPIX|CDELT|CROTA|CUNIT)[12]$/,
  /^(?:CD|PC)[12]_[12]$/,
  /^PV[12]_\d{1,2}$/,
  /^(?:A|B|AP|BP)_(?:ORDER|DMAX|\d_\d)$/,
  /^(?:EQUINOX|EPOCH|RADESYS|RADECSYS|LONPOLE|LATPOLE|WCSAXES|MERIDOBS)$/,
];
const replaced = (key: string) => REPLACED_KEYS.some((pattern) => pattern.test(key));

/** A value in FITS fixed format: strings quoted from column 11, numbers right-aligned to column 30, reals with a point or an E exponent. */
function valueText(value: string | number): string {
  if (typeof value === "string") return `'${value.replace(/'/g, "''").padEnd(8)}'`;
  let text = Number.isInteger(value) && Math.abs(value) < 1e15 ? value.toFixed(1) : String(value);
  if (text.length > 20 || /e/.test(text)) text = value.toExponential(12).toUpperCase();
  return text.padStart(20);
}

const card = (key: string, value: string | number, comment: string) => `${key.padEnd(8)}= ${valueText(value)} / ${comment}`.padEnd(CARD).slice(0, CARD);

/**
 * The solution as WCS cards: a TAN projection around the image's centre pixel ((N + 1) / 2 on
 * each axis, where the solution's ra/dec lies) with a CD matrix of the pixel scale and rotation.
 * "Up is rotationDeg east of north": the image's +y axis points at position angle θ, so one pixel
 * up moves (east, north) by s·(sin θ, cos θ). The +x axis is at θ − 90°, east to the left when
 * north is up, as the sky looks through a camera: one pixel right moves by s·(−cos θ, sin θ); in a
 * mirrored frame (the solve's parity) it is at θ + 90° instead, and moves by s·(cos θ, −sin θ).
 */
function solutionCards(options: { solution: FrameSolution; mirrored: boolean; width: number; height: number; observationId: string }): string[] {
  const { solution, width, height } = options;
  const scale = solution.pixelScaleArcsec / 3600;
  const right = options.mirrored ? -1 : 1;
  const [sin, cos] = [Math.sin(solution.rotationDeg * rad), Math.cos(solution.rotationDeg * rad)];
  return [
    card("CTYPE1", "RA---TAN", "TAN (gnomonic) projection, right ascension"),
    card("CTYPE2", "DEC--TAN", "TAN (gnomonic) projection, declination"),
    card("EQUINOX", 2000, "J2000 coordinates"),
    card("CRVAL1", solution.ra, "[deg] RA of the reference pixel (the image centre)"),
    card("CRVAL2", solution.dec, "[deg] Dec of the reference pixel"),
    card("CRPIX1", (width + 1) / 2, "[pixel] reference pixel: the image centre"),
    card("CRPIX2", (height + 1) / 2, "[pixel] reference pixel: the image centre"),
    card("CD1_1", -right * scale * cos, "[deg/pixel] transformation matrix"),
    card("CD1_2", scale * sin, "[deg/pixel] transformation matrix"),
    card("CD2_1", right * scale * sin, "[deg/pixel] transformation matrix"),
    card("CD2_2", scale * cos, "[deg/pixel] transformation matrix"),
    card("MERIDOBS", options.observationId, "Meridian observation id"),
  ];
}

/** A header as read: its cards before END, and how many bytes it took (whole blocks). */
interface Header {
  cards: string[];
  bytes: Buffer;
}

const valueOf = (header: Header, key: string): CardValue | undefined => {
  const found = header.cards.find((text) => text.slice(0, 8).trimEnd() === key && text.slice(8, 10) === "= ");
  return found === undefined ? undefined : parseCardValue(found.slice(10));
};

/** The header with the WCS cards in place of its own, END after them, padded with spaces to whole blocks (one more, when they need it). */
function rewritten(header: Header, solution: string[]): Buffer {
  const kept = header.cards.filter((text) => !replaced(text.slice(0, 8).trimEnd()));
  // Blank cards before END are room a writer left for more cards: the solution's take it.
  while (kept.length > 0 && kept.at(-1)!.trim() === "") kept.pop();
  const text = [...kept, ...solution, "END"].map((each) => each.padEnd(CARD)).join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / BLOCK) * BLOCK, " "), "latin1");
}

/** Bytes taken from a stream as they are asked for, and the rest of it passed on untouched. */
function takeFrom(source: AsyncIterator<Buffer>) {
  let held: Buffer = Buffer.alloc(0);
  return {
    async take(bytes: number): Promise<Buffer> {
      const chunks: Buffer[] = [held];
      let length = held.length;
      while (length < bytes) {
        const next = await source.next();
        if (next.done) throw new Error("The file ends inside its header");
        chunks.push(next.value);
        length += next.value.length;
      }
      const all = chunks.length === 1 ? held : Buffer.concat(chunks, length);
      held = all.subarray(bytes);
      return all.subarray(0, bytes);
    },
    async *rest(): AsyncGenerator<Buffer> {
      if (held.length > 0) yield held;
      for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
    },
  };
}

async function readHeader(stream: ReturnType<typeof takeFrom>): Promise<Header> {
  const cards: string[] = [];
  const blocks: Buffer[] = [];
  while (blocks.length < MAX_HEADER_BLOCKS) {
    const block = await stream.take(BLOCK);
    blocks.push(block);
    for (let start = 0; start < BLOCK; start += CARD) {
      const text = block.subarray(start, start + CARD).toString("latin1");
      if (text.slice(0, 8).trimEnd() === "END") return { cards, bytes: Buffer.concat(blocks) };
      cards.push(text);
    }
  }
  throw new Error("The header has no END card within the cards a frame may have");
}

/**
 * A solved frame's FITS with its solution in the image's header (the primary HDU's, or the first
 * image extension's behind an empty primary), streamed: the headers before the image's data are
 * read (at most the contract's 10,000 cards each), the image's written again, and every byte
 * after it passed on as it comes from storage. Answers the new stream and its length.
 */
export async function fitsWithSolution(options: {
  body: Readable;
  contentLength: number;
  solution: FrameSolution;
  /** The solve found east to the right of north (`frame.mirrored`). */
  mirrored: boolean;
  observationId: string;
}): Promise<{ body: Readable; contentLength: number }> {
  const source = options.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const stream = takeFrom(source);
  try {
    const before: Buffer[] = [];
    let image = await readHeader(stream);
    if (valueOf(image, "NAXIS") !== 2) {
      // An empty primary HDU (NAXIS 0: no data) and the image in the extension after it, as the analysis found it.
      if (valueOf(image, "NAXIS") !== 0) throw new Error("The file holds no image where its analysis found one");
      before.push(image.bytes);
      image = await readHeader(stream);
    }
    const [width, height] = [valueOf(image, "NAXIS1"), valueOf(image, "NAXIS2")];
    if (typeof width !== "number" || typeof height !== "number") throw new Error("The image's header has no NAXIS1 and NAXIS2");
    const header = rewritten(image, solutionCards({ ...options, width, height }));
    async function* parts() {
      try {
        yield* before;
        yield header;
        yield* stream.rest();
      } finally {
        // Ended early too (the client went away): the connection to storage is let go.
        options.body.destroy();
      }
    }
    return { body: Readable.from(parts(), { objectMode: false }), contentLength: options.contentLength - image.bytes.length + header.length };
  } catch (error) {
    options.body.destroy();
    throw error;
  }
}
