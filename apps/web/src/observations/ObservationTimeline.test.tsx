// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ObservationStatus } from "@meridian/rules";
import { describe, expect, it } from "vitest";
import { startApi, type Procedures, type Answer } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { observationFixture } from "./observation-fixtures";
import { ObservationTimeline } from "./ObservationTimeline";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

interface Move {
  id: string;
  from: ObservationStatus | null;
  to: ObservationStatus;
  at: string;
  actor: { kind: string; id: string; name: string | null };
  reason: string | null;
  clonedFromId?: string | null;
}

const dispatch = { kind: "system", id: "dispatch", name: null } as const;
const owner = { kind: "user", id: "usr_owner", name: "Owner Olga" } as const;
const submitted = (fields: Partial<Move> = {}): Move => ({
  id: "h0",
  from: null,
  to: "pending",
  at: "2026-11-20T10:00:00.000Z",
  actor: owner,
  reason: null,
  ...fields,
});
/** `count` moves of a monitoring cadence after the submission, oldest first, each named `cadence <n>`. */
const cadence = (count: number): Move[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `h${index + 1}`,
    from: index % 2 === 0 ? "pending" : "assigned",
    to: index % 2 === 0 ? "assigned" : "pending",
    at: "2026-11-20T11:00:00.000Z",
    actor: dispatch,
    reason: `cadence ${index}`,
  }));

/** `observations.history` over `moves` (oldest first) as the server pages it: newest first, `limit` at a time, by cursor. */
function historyOf(moves: () => Move[]): Procedures["observations.history"] {
  return (input: unknown) => {
    const { limit, cursor } = input as { limit: number; cursor?: string };
    const newestFirst = [...moves()].reverse();
    const start = cursor ? Number(cursor) : 0;
    const items = newestFirst.slice(start, start + limit);
    return { items: items as Answer<"observations.history">["items"], nextCursor: start + limit < newestFirst.length ? String(start + limit) : null };
  };
}

const entries = () => within(screen.getByRole("list", { name: "Status timeline" })).getAllByRole("listitem");

describe("an observation's timeline", () => {
  it("reads the history again when it ends elsewhere than the status the page shows", async () => {
    const moves = [submitted(), { ...submitted({ id: "h1", from: "pending", to: "cancelled" }) }];
    let reads = 0;
    // The first read answers as if it had been made just before the cancel.
    api = await startApi({ "auth.me": () => signedIn(), "observations.history": historyOf(() => (reads++ === 0 ? moves.slice(0, 1) : moves)) });
    renderInApp(<ObservationTimeline observationId="obs_1" status="cancelled" statusChangedAt="2026-11-20T10:05:00.000Z" timeZone="UTC" />);
    await within(await screen.findByRole("list", { name: "Status timeline" })).findByText("Cancelled", { exact: true });
    expect(entries()).toHaveLength(2);
    expect(api.calls("observations.history")).toHaveLength(2);
  });

  it("opens a long history on its newest moves and reaches back by keyboard, page by page, to the submission", async () => {
    const moves = [submitted(), ...cadence(120), submitted({ id: "hz", from: "pending", to: "cancelled", actor: owner })];
    api = await startApi({ "auth.me": () => signedIn(), "observations.history": historyOf(() => moves) });
    renderInApp(<ObservationTimeline observationId="obs_1" status="cancelled" statusChangedAt="2026-11-20T12:00:00.000Z" timeZone="UTC" />);
    await screen.findByRole("list", { name: "Status timeline" });
    // The newest move is there at once, last, with the page of moves before it.
    expect(entries()).toHaveLength(50);
    expect(entries().at(-1)!.textContent).toContain("Cancelled");
    const oldestShown = entries()[0]!.textContent;
    expect(oldestShown).toMatch(/cadence \d+$/);
    expect(screen.getByText("The latest 50 moves")).toBeTruthy();

    const user = userEvent.setup({ delay: null });
    screen.getByRole("button", { name: "Show older moves" }).focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(entries()).toHaveLength(100));
    // The older page goes above what was shown, the newest still last.
    expect(entries()[50]!.textContent).toBe(oldestShown);
    expect(entries().at(-1)!.textContent).toContain("Cancelled");
    expect(entries().filter((entry) => entry.textContent?.includes("Submitted"))).toHaveLength(0);

    screen.getByRole("button", { name: "Show older moves" }).focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(entries()).toHaveLength(122));
    expect(entries()[0]!.textContent).toContain("Submitted by Owner Olga");
    await waitFor(() => expect(screen.queryByRole("button", { name: "Show older moves" })).toBeNull());
  });

  it("names who made each move, and links a clone's source by its name, never by a raw id", async () => {
    const moves = [submitted({ clonedFromId: "obs_source" }), submitted({ id: "h1", from: "pending", to: "paused" })];
    api = await startApi({
      "auth.me": () => signedIn(),
      "observations.history": historyOf(() => moves),
      "observations.get": () => observationFixture({ id: "obs_source", name: "Solo renamed" }),
    });
    renderInApp(<ObservationTimeline observationId="obs_1" status="paused" statusChangedAt="2026-11-20T12:00:00.000Z" timeZone="UTC" />);
    const timeline = await screen.findByRole("list", { name: "Status timeline" });
    const source = await within(timeline).findByRole("link", { name: "Solo renamed" });
    expect(source.getAttribute("href")).toBe("/observations/obs_source");
    expect(entries()[0]!.textContent).toContain("Submitted by Owner Olga, cloned from Solo renamed");
    expect(timeline.textContent).not.toContain("obs_source");
    expect(within(timeline).getByText("From pending, by Owner Olga")).toBeTruthy();
  });
});
