import { InfiniteQueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { ChangeFollowingQueryClient } from "./query-client";
import { cursorPagesOptions, pageInput, type CursorPage } from "./useCursorPages";

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("cursor pages", () => {
  it("give up a first read that a change overtook: its signal aborts, and the read after the change is what stays", async () => {
    const client = new ChangeFollowingQueryClient();
    const reads: Array<{ cursor: string | null; signal: AbortSignal; resolve: (page: CursorPage<string>) => void }> = [];
    const options = cursorPagesOptions(
      ["observations"],
      (cursor, signal) => new Promise<CursorPage<string>>((resolve) => reads.push({ cursor, signal, resolve })),
    );
    const unsubscribe = new InfiniteQueryObserver(client, options).subscribe(() => undefined);
    await settled();
    expect(reads.map(({ cursor }) => cursor)).toEqual([null]);

    const invalidated = client.invalidateQueries({ queryKey: ["observations"] });
    await settled();
    expect(reads[0]!.signal.aborted).toBe(true);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.signal.aborted).toBe(false);
    reads[1]!.resolve({ items: ["after the change"], nextCursor: null });
    await invalidated;
    expect(client.getQueryData<{ pages: Array<CursorPage<string>> }>(["observations"])?.pages).toEqual([{ items: ["after the change"], nextCursor: null }]);
    unsubscribe();
    client.clear();
  });

  it("ask for the first page without a cursor and for each later one with its cursor", () => {
    expect(pageInput({ limit: 50 }, null)).toEqual({ limit: 50 });
    expect(pageInput({ limit: 50 }, "c2")).toEqual({ limit: 50, cursor: "c2" });
  });
});
