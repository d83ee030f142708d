import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import { readFitsImage } from "./fits-header";
import { renderFramePreview } from "./make-preview";

const card = (key: string, value: string) => `${key.padEnd(8)}= ${value}`.padEnd(80);
const header = (cards: string[]) => {
  const text = [...cards, "END".padEnd(80)].join("");
  return Buffer.from(text.padEnd(Math.ceil(text.length / 2880) * 2880), "latin1");
};

const folder = await fs.mkdtemp(path.join(os.tmpdir(), "make-preview-"));
afterAll(() => fs.rm(folder, { recursive: true, force: true }));

async function previewOf(bytes: Buffer) {
  const file = path.join(folder, "frame.fits");
  await fs.writeFile(file, bytes);
  const handle = await fs.open(file);
  try {
    return PNG.sync.read(await renderFramePreview({ handle, image: (await readFitsImage(handle))! }));
  } finally {
    await handle.close();
  }
}

describe("a frame's preview", () => {
  it("bins a large float frame to at most 1024 px, leaves NaN out, and shows its star bright over a dark sky, row 1 at the bottom", async () => {
    const [width, height] = [2100, 300];
    const data = Buffer.alloc(width * height * 4);
    for (let index = 0; index < width * height; index += 1) data.writeFloatBE(100 + (index % 7), index * 4);
    // A star at column 1500, row 10 (0-based, FITS order), and a column of NaN.
    for (let row = 8; row <= 12; row += 1) for (let column = 1498; column <= 1502; column += 1) data.writeFloatBE(5000, (row * width + column) * 4);
    for (let row = 0; row < height; row += 1) data.writeFloatBE(Number.NaN, (row * width + 3) * 4);
    const axes = [
      card("BITPIX", "-32".padStart(20)),
      card("NAXIS", "2".padStart(20)),
      card("NAXIS1", `${width}`.padStart(20)),
      card("NAXIS2", `${height}`.padStart(20)),
    ];
    const read = await previewOf(Buffer.concat([header([card("SIMPLE", "T".padStart(20)), ...axes]), data]));
    // Binned 3 × 3: 700 × 100.
    expect([read.width, read.height]).toEqual([700, 100]);
    const at = (column: number, row: number) => read.data[(row * read.width + column) * 4]!;
    expect(at(500, 100 - 1 - 3)).toBe(255);
    expect(at(100, 50)).toBeLessThan(100);
  });
});
