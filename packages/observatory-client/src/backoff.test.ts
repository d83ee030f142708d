import { describe, expect, it } from "vitest";
import { backoffMs } from "./client";

describe("backoffMs", () => {
  it("starts at a second, doubles to at most 30 s, and draws each pause between half and all of its ceiling", () => {
    const ceilings = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];
    ceilings.forEach((ceiling, index) => {
      for (let draw = 0; draw < 200; draw += 1) {
        const pause = backoffMs(index + 1);
        expect(pause).toBeGreaterThanOrEqual(ceiling / 2);
        expect(pause).toBeLessThanOrEqual(ceiling);
      }
    });
  });

  it("spreads the pauses of plugins refused together", () => {
    const pauses = new Set(Array.from({ length: 100 }, () => backoffMs(5)));
    expect(pauses.size).toBeGreaterThan(50);
  });
});
