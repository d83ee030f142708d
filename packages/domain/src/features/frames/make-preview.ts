import type { FileHandle } from "node:fs/promises";
import { PNG } from "pngjs";
import type { FitsImage } from "./fits-header";

/** The contract's bound on a server-made preview's long side. */
const PREVIEW_MAX_SIDE = 1024;
/** Bytes of pixel data read at a time: the frame is never in memory whole. */
const READ_BYTES = 1 << 20;
/** Binned pixels the stretch's percentiles are taken from (every n-th), so sorting them stays cheap. */
const STRETCH_SAMPLES = 250_000;
/** The asinh stretch's softening, in sky noise: linear within a few σ of the sky, logarithmic above, so faint and bright stars both show. */
const SOFTENING_SIGMAS = 3;
/** Where black lies below the sky, in sky noise: the sky shows as a dark grey with its noise, not clipped to black. */
const BLACK_SIGMAS = 2;

type PixelReader = (view: DataView, offset: number) => number;
const PIXEL_READERS: Record<number, PixelReader> = {
  8: (view, offset) => view.getUint8(offset),
  16: (view, offset) => view.getInt16(offset),
  32: (view, offset) => view.getInt32(offset),
  [-32]: (view, offset) => view.getFloat32(offset),
  [-64]: (view, offset) => view.getFloat64(offset),
};

const cardNumber = (image: FitsImage, key: string, fallback: number) => {
  const value = image.header.cards.get(key);
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
};

interface Binned {
  width: number;
  height: number;
  /** Mean value of each bin, rows in FITS order (the first is the image's bottom); NaN for a bin with no valid pixel. */
  means: Float32Array;
}

/**
 * The image averaged over square bins of `factor` × `factor` pixels, read from the file a
 * megabyte at a time: memory is the binned image (at most 1024 × 1024 bins) and one read
 * buffer, whatever the frame's size. Blank (BLANK) and NaN pixels are left out of their bin.
 */
async function binImage(handle: FileHandle, image: FitsImage): Promise<Binned> {
  const factor = Math.max(1, Math.ceil(Math.max(image.width, image.height) / PREVIEW_MAX_SIDE));
  const width = Math.ceil(image.width / factor);
  const height = Math.ceil(image.height / factor);
  const sums = new Float64Array(width * height);
  const counts = new Uint32Array(width * height);
  const pixelBytes = Math.abs(image.bitpix) / 8;
  const readPixel = PIXEL_READERS[image.bitpix]!;
  const blank = image.bitpix > 0 ? image.header.cards.get("BLANK") : undefined;
  const total = image.width * image.height;
  const buffer = Buffer.alloc(Math.floor(READ_BYTES / pixelBytes) * pixelBytes);
  let pixel = 0;
  let [column, row] = [0, 0];
  while (pixel < total) {
    const wanted = Math.min(buffer.length, (total - pixel) * pixelBytes);
    const { bytesRead } = await handle.read(buffer, 0, wanted, image.header.dataOffset + pixel * pixelBytes);
    // readFitsImage checked the data's length; a file that shrank since ends the preview.
    if (bytesRead < pixelBytes) throw new Error("The frame's data ended before its last pixel");
    const view = new DataView(buffer.buffer, buffer.byteOffset, bytesRead - (bytesRead % pixelBytes));
    let binRowStart = Math.floor(row / factor) * width;
    for (let offset = 0; offset < view.byteLength; offset += pixelBytes) {
      const raw = readPixel(view, offset);
      if (raw === raw && raw !== blank) {
        const bin = binRowStart + Math.floor(column / factor);
        sums[bin]! += raw;
        counts[bin]! += 1;
      }
      column += 1;
      if (column === image.width) {
        column = 0;
        row += 1;
        binRowStart = Math.floor(row / factor) * width;
      }
    }
    pixel += view.byteLength / pixelBytes;
  }
  // BZERO and BSCALE make raw values physical; the stretch below would undo any positive scale, but not a negative one.
  const [zero, scale] = [cardNumber(image, "BZERO", 0), cardNumber(image, "BSCALE", 1)];
  const means = new Float32Array(width * height);
  for (let bin = 0; bin < means.length; bin += 1) means[bin] = counts[bin]! > 0 ? zero + (scale * sums[bin]!) / counts[bin]! : Number.NaN;
  return { width, height, means };
}

/** Black, the sky's noise and white of the binned image: from a sorted sample, and its brightest bin. */
function stretchLevels(means: Float32Array) {
  const stride = Math.max(1, Math.ceil(means.length / STRETCH_SAMPLES));
  const sample: number[] = [];
  let brightest = Number.NEGATIVE_INFINITY;
  for (let bin = 0; bin < means.length; bin += 1) {
    const value = means[bin]!;
    if (value !== value) continue;
    if (value > brightest) brightest = value;
    if (bin % stride === 0) sample.push(value);
  }
  if (sample.length === 0) return null;
  const sorted = Float64Array.from(sample).sort();
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  const sky = at(0.5);
  // The sky's noise from below its median (a Gaussian's 15.9th percentile is 1 σ under it): stars sit above and do not count.
  const noise = sky - at(0.1587);
  const black = Math.max(sorted[0]!, sky - BLACK_SIGMAS * noise);
  return { black, white: brightest, softening: Math.max(noise * SOFTENING_SIGMAS, (brightest - black) * 1e-6) };
}

/**
 * A frame's preview, as the contract asks: a greyscale PNG at most 1024 pixels on its long side
 * (the image binned), stretched from just below the sky background to the brightest star with an
 * asinh curve (linear near the sky, logarithmic above), so that faint stars show beside bright
 * ones. North-up conventions aside, it is drawn as FITS viewers draw a frame: its first row at the
 * bottom. A frame of one value throughout is black.
 */
export async function renderFramePreview(options: { handle: FileHandle; image: FitsImage }): Promise<Buffer> {
  const { width, height, means } = await binImage(options.handle, options.image);
  const levels = stretchLevels(means);
  const png = new PNG({ width, height, colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8 });
  const grey = Buffer.alloc(width * height);
  if (levels && levels.white > levels.black) {
    const { black, white, softening } = levels;
    const top = Math.asinh((white - black) / softening);
    for (let row = 0; row < height; row += 1)
      for (let column = 0; column < width; column += 1) {
        const value = means[row * width + column]!;
        const level = value === value ? Math.asinh(Math.max(0, value - black) / softening) / top : 0;
        grey[(height - 1 - row) * width + column] = Math.round(255 * Math.min(1, level));
      }
  }
  png.data = grey;
  return PNG.sync.write(png, { colorType: 0, inputColorType: 0, inputHasAlpha: false, bitDepth: 8 });
}
