import { describe, expect, it } from "vitest";
import { SharedReads } from "./shared-reads";

/** A read that resolves (or fails) when the test says, counting how many were started. */
function controlledReads() {
  const started: Array<{ resolve: (value: string) => void; reject: (error: Error) => void }> = [];
  const read = () => new Promise<string>((resolve, reject) => started.push({ resolve, reject }));
  return { started, read };
}

describe("SharedReads", () => {
  it("gives the requests that miss together one read, and forgets it once done", async () => {
    const reads = new SharedReads<string>();
    const { started, read } = controlledReads();
    const waiting = Array.from({ length: 100 }, () => reads.read("page", 7, read));
    expect(started).toHaveLength(1);
    started[0]!.resolve("the page");
    expect(await Promise.all(waiting)).toEqual(Array(100).fill("the page"));
    expect(reads.size).toBe(0);
    // The next miss reads again.
    void reads.read("page", 7, read);
    expect(started).toHaveLength(2);
  });

  it("never joins a read begun before a change, nor one of another key", async () => {
    const reads = new SharedReads<string>();
    const { started, read } = controlledReads();
    const before = reads.read("page", 1, read);
    const afterChange = reads.read("page", 2, read);
    const otherKey = reads.read("other", 2, read);
    expect(started).toHaveLength(3);
    // A newer generation's read is the one later callers join; the older one ending does not drop it.
    started[0]!.resolve("stale");
    expect(await before).toBe("stale");
    const joined = reads.read("page", 2, read);
    expect(started).toHaveLength(3);
    started[1]!.resolve("fresh");
    started[2]!.resolve("other");
    expect([await afterChange, await joined, await otherKey]).toEqual(["fresh", "fresh", "other"]);
    expect(reads.size).toBe(0);
  });

  it("hands a failure to every request that waited for it, and the next miss tries again", async () => {
    const reads = new SharedReads<string>();
    const { started, read } = controlledReads();
    const waiting = [reads.read("page", 1, read), reads.read("page", 1, read)];
    started[0]!.reject(new Error("no connection"));
    for (const outcome of await Promise.allSettled(waiting)) expect(outcome).toMatchObject({ status: "rejected", reason: { message: "no connection" } });
    expect(reads.size).toBe(0);
    void reads.read("page", 1, read);
    expect(started).toHaveLength(2);
  });
});
