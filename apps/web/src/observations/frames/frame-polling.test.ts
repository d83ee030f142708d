import { describe, expect, it } from "vitest";
import { framePollInterval, queuedFrames } from "./frame-polling";

const now = Date.parse("2026-11-29T12:00:00Z");
const file = (status: string | null, minutesAgo: number) => ({
  createdAt: new Date(now - minutesAgo * 60_000).toISOString(),
  frame: status ? { status } : null,
});

describe("following frame analyses", () => {
  it("reads the files again every few seconds while a frame uploaded in the last hour waits for its analysis", () => {
    expect(framePollInterval([file("analysed", 1), file("queued", 5)], now)).toBe(4_000);
  });

  it("stops once no frame waits, and does not ask forever for one stuck in the queue (integrity reports it after an hour)", () => {
    expect(framePollInterval([file("analysed", 1), file("failed", 1), file(null, 1)], now)).toBe(false);
    expect(framePollInterval([file("queued", 61)], now)).toBe(false);
    expect(framePollInterval(undefined, now)).toBe(false);
  });

  it("counts the frames still waiting", () => {
    expect(queuedFrames([file("queued", 1), file("analysed", 1), file("queued", 90)])).toBe(2);
  });
});
