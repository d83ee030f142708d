import type { ObservationDoc, StoredDocument } from "@meridian/db";
import type { QueueBlock } from "@meridian/scheduler";
import { describe, expect, it } from "vitest";
import { followNetworkPlan, type PlanAtObservatory, type VersionedObservation } from "./follow-plan";

const MINUTE = 60_000;
const NOW = new Date("2026-12-10T22:00:00Z");
const at = (minutes: number) => new Date(NOW.getTime() + minutes * MINUTE);
const HERE = "obs-here";

/** The row version every plan here read; an observation changed since has another. */
const SEEN = "100";
const CHANGED = "101";
const observation = (id: string, version: string): VersionedObservation => ({
  ...({ id, doc: {} as ObservationDoc, createdAt: at(-120), updatedAt: at(-60) } as StoredDocument<ObservationDoc>),
  version,
});
const item = (id: string, reasons: QueueBlock[] = [], version = SEEN) => ({
  observation: observation(id, version),
  eligible: reasons.length === 0,
  blockedBy: reasons[0] ?? null,
  reasons,
});
const run = (observationId: string, observatoryId: string, start: number, minutes = 20) => ({
  observationId,
  observatoryId,
  start: at(start),
  end: at(start + minutes),
});
const plan = (...runs: ReturnType<typeof run>[]): PlanAtObservatory => ({
  computedAt: at(-1),
  runs,
  leftOut: new Map(),
  seenVersions: new Map(runs.map((planned) => [planned.observationId, SEEN])),
});
const follow = (items: ReturnType<typeof item>[], network: PlanAtObservatory, minutes = 20) =>
  followNetworkPlan({ items, plan: network, observatoryId: HERE, now: NOW, durationMs: () => minutes * MINUTE });

describe("dispatch following the network plan", () => {
  it("holds what the plan starts later here (PLANNED_LATER) or runs elsewhere (PLANNED_ELSEWHERE), and takes what it starts now", () => {
    const followed = follow(
      [item("later"), item("elsewhere"), item("now")],
      plan(run("now", HERE, 3), run("later", HERE, 30), run("elsewhere", "obs-there", 10)),
    );
    const byId = new Map(followed.items.map((entry) => [entry.observation.id, entry]));
    expect(byId.get("later")!.reasons).toEqual([{ code: "PLANNED_LATER", until: at(30) }]);
    expect(byId.get("elsewhere")!.reasons).toEqual([{ code: "PLANNED_ELSEWHERE", until: at(10), observatoryId: "obs-there" }]);
    expect(byId.get("now")!.eligible).toBe(true);
    expect(followed.toAssign.map((entry) => entry.observation.id)).toEqual(["now"]);
    // The queue keeps dispatch's order.
    expect(followed.items.map((entry) => entry.observation.id)).toEqual(["later", "elsewhere", "now"]);
  });

  it("leaves an observation's own reasons alone: the plan's come only where nothing else holds it", () => {
    const notDark: QueueBlock = { code: "NOT_DARK", until: at(40) };
    const followed = follow([item("dark", [notDark])], plan(run("dark", HERE, 40)));
    expect(followed.items[0]!.reasons).toEqual([notDark]);
  });

  it("takes what the plan starts now first, by its planned start, before what comes first in dispatch order", () => {
    const followed = follow([item("unplanned"), item("second"), item("first")], plan(run("first", HERE, 0, 2), run("second", HERE, 2, 2)), 1);
    expect(followed.toAssign.map((entry) => entry.observation.id)).toEqual(["first", "second", "unplanned"]);
  });

  it("lets an observation the plan has not seen fill the time before the next planned run, and holds one that would not end before it", () => {
    const network = plan(run("planned", HERE, 30));
    expect(follow([item("short")], network, 25).items[0]!.eligible).toBe(true);
    expect(follow([item("long")], network, 35).items[0]!.reasons).toEqual([{ code: "OBSERVATORY_BUSY", until: at(30) }]);
  });

  it("holds one the plan left out with the plan's reason here, though it would end before the next planned run, unless changed since", () => {
    const spent: QueueBlock = { code: "ALLOCATION_EXHAUSTED", until: null };
    const network = { ...plan(run("planned", HERE, 30)), leftOut: new Map([["left out", spent]]), seenVersions: new Map([["left out", SEEN]]) };
    expect(follow([item("left out")], network, 25).items[0]!.reasons).toEqual([spent]);
    expect(follow([item("left out")], network, 25).toAssign).toEqual([]);
    // Edited after the plan was made (another row version): the plan has not seen it as it is, and it fills the gap as one it never saw.
    expect(follow([item("left out", [], CHANGED)], network, 25).items[0]!.eligible).toBe(true);
    // The plan's time and the row's say nothing of it (the database's clock and the server's may differ): a plan made
    // "later" by its clock has still not seen a version it did not read, and one made "earlier" has seen the one it read.
    expect(follow([item("left out", [], CHANGED)], { ...network, computedAt: at(600) }, 25).items[0]!.eligible).toBe(true);
    expect(follow([item("left out")], { ...network, computedAt: at(-600) }, 25).items[0]!.reasons).toEqual([spent]);
  });

  it("asks for a new plan when what it starts here now cannot start for a change it has not seen, and only then", () => {
    // Edited after the plan was made (now held by its window): the plan is made again.
    const edited = item("edited", [{ code: "BEFORE_WINDOW", until: at(90) }], CHANGED);
    expect(follow([edited], plan(run("edited", HERE, 0))).replan).toBe(true);
    // No longer waiting here (assigned, cancelled): the same.
    expect(follow([], plan(run("gone", HERE, 2))).replan).toBe(true);
    // Unchanged since the plan: the plan and dispatch see it alike, and making the plan again would change nothing.
    const unchanged = item("unchanged", [{ code: "NOT_DARK", until: at(90) }]);
    expect(follow([unchanged], plan(run("unchanged", HERE, 0))).replan).toBe(false);
    // What it starts later needs nothing now.
    expect(follow([], plan(run("later", HERE, 30))).replan).toBe(false);
  });

  it("is dispatch alone without a plan", () => {
    const followed = follow([item("a"), item("b")], { computedAt: null, runs: [], leftOut: new Map(), seenVersions: new Map() });
    expect(followed.toAssign.map((entry) => entry.observation.id)).toEqual(["a", "b"]);
    expect(followed.replan).toBe(false);
  });
});
