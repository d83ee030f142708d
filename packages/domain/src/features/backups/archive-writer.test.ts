import { describe, expect, it } from "vitest";
import { blockRanges } from "./archive-writer";

const BLOCK = 8192;
const heapOf = (mib: number) => (mib * 1024 * 1024) / BLOCK;
const sizes = (ranges: ReturnType<typeof blockRanges>, blocks: number) => ranges.map((range) => (range.to ?? blocks) - range.from);

describe("a large heap's block ranges", () => {
  it("cover the heap end to end, each range starting where the last ended, the last one open", () => {
    const blocks = heapOf(1562) + 37;
    const ranges = blockRanges({ blocks, blockSize: BLOCK, readers: 2 });
    expect(ranges[0]!.from).toBe(0);
    for (let index = 1; index < ranges.length; index++) expect(ranges[index]!.from).toBe(ranges[index - 1]!.to);
    expect(ranges.at(-1)!.to).toBeNull();
    expect(sizes(ranges, blocks).reduce((sum, size) => sum + size, 0)).toBe(blocks);
  });

  it("leave the readers no lone range at the end: a multiple of the readers' number, the last of them halved", () => {
    // A million observations' heap (1.5 GiB) on two readers: thirteen equal ranges had one reader read the last alone.
    for (const readers of [2, 3, 4]) {
      const blocks = heapOf(1562);
      const ranges = blockRanges({ blocks, blockSize: BLOCK, readers });
      const each = sizes(ranges, blocks);
      const full = each.slice(0, -2 * readers);
      const halves = each.slice(-2 * readers);
      expect((full.length + halves.length / 2) % readers).toBe(0);
      for (const size of full) expect(size).toBeLessThanOrEqual(heapOf(128) + 1);
      for (const size of halves) expect(Math.abs(size - full[0]! / 2)).toBeLessThanOrEqual(1);
    }
  });

  it("give every reader a range of a heap only just large enough to split", () => {
    const blocks = heapOf(2);
    expect(blockRanges({ blocks, blockSize: BLOCK, readers: 2 }).length).toBeGreaterThanOrEqual(2);
    expect(sizes(blockRanges({ blocks, blockSize: BLOCK, readers: 4 }), blocks).every((size) => size > 0)).toBe(true);
  });
});
