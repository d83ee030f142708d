import { describe, expect, it } from "vitest";
import { PerMinuteLimiter } from "./per-minute-limiter";

describe("PerMinuteLimiter", () => {
  it("forgets the buckets that have filled up again, so its map holds only the principals of the last minute", () => {
    const limiter = new PerMinuteLimiter(60);
    for (let n = 0; n < 999; n += 1) limiter.take({ key: `user:${n}`, cost: 1, now: 0 });
    expect(limiter.size).toBe(999);
    // A minute later every bucket is full: the 1,000th take sweeps them and keeps only its own.
    limiter.take({ key: "user:late", cost: 1, now: 60_000 });
    expect(limiter.size).toBe(1);
  });

  it("keeps a bucket that is still refilling through a sweep", () => {
    const limiter = new PerMinuteLimiter(60);
    limiter.take({ key: "busy", cost: 60, now: 0 });
    for (let n = 0; n < 999; n += 1) limiter.take({ key: `user:${n}`, cost: 1, now: 30_000 });
    expect(() => limiter.take({ key: "busy", cost: 31, now: 30_000 })).toThrow(/60 changes a minute/);
    limiter.take({ key: "busy", cost: 30, now: 30_000 });
  });
});
