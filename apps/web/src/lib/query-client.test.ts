import { QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { ChangeFollowingQueryClient } from "./query-client";

/** A query whose reads are answered by hand, in the order they were made: what the server held when each began. */
function heldReads() {
  const reads: Array<{ resolve: (value: string) => void; signal: AbortSignal }> = [];
  const queryFn = ({ signal }: { signal: AbortSignal }) => new Promise<string>((resolve) => reads.push({ resolve, signal }));
  return { reads, queryFn };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ChangeFollowingQueryClient", () => {
  it("reads again after an invalidation that came while the first read was on its way", async () => {
    const client = new ChangeFollowingQueryClient();
    const { reads, queryFn } = heldReads();
    const observer = new QueryObserver(client, { queryKey: ["observations"], queryFn, staleTime: 30_000 });
    const shown: Array<string | undefined> = [];
    const unsubscribe = observer.subscribe((result) => shown.push(result.data));
    await settled();
    expect(reads).toHaveLength(1);

    // The change is heard while the first read, begun before it, is out.
    const invalidated = client.invalidateQueries({ queryKey: ["observations"] });
    await settled();
    reads[0]!.resolve("before the change");
    await settled();
    expect(reads).toHaveLength(2);
    reads[1]!.resolve("after the change");
    await invalidated;

    expect(observer.getCurrentResult().data).toBe("after the change");
    expect(shown).not.toContain("before the change");
    unsubscribe();
    client.clear();
  });

  it("still refetches a query that has data, and leaves alone the queries the filter does not name", async () => {
    const client = new ChangeFollowingQueryClient();
    const observations = heldReads();
    const projects = heldReads();
    const watching = [
      new QueryObserver(client, { queryKey: ["observations"], queryFn: observations.queryFn, staleTime: 30_000 }),
      new QueryObserver(client, { queryKey: ["projects"], queryFn: projects.queryFn, staleTime: 30_000 }),
    ].map((observer) => observer.subscribe(() => undefined));
    await settled();
    observations.reads[0]!.resolve("first");
    await settled();

    const invalidated = client.invalidateQueries({ queryKey: ["observations"] });
    await settled();
    expect(observations.reads).toHaveLength(2);
    observations.reads[1]!.resolve("second");
    await invalidated;
    expect(client.getQueryData(["observations"])).toBe("second");
    // The projects' first read, not named, goes on and is not cancelled.
    expect(projects.reads).toHaveLength(1);
    expect(projects.reads[0]!.signal.aborted).toBe(false);
    projects.reads[0]!.resolve("projects");
    await settled();
    expect(client.getQueryData(["projects"])).toBe("projects");
    for (const unsubscribe of watching) unsubscribe();
    client.clear();
  });
});
