// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { RealtimeProvider } from "../lib/realtime";
import { NetworkPage } from "./NetworkPage";
import { startApi, type Answer, type Procedures } from "../test-support/api";
import { renderInApp, textOf } from "../test-support/render";

const observatories: Answer<"observatories.list"> = {
  items: [
    { id: "oby_a", name: "Dome A", timeZone: "Europe/Madrid" },
    { id: "oby_b", name: "Dome B", timeZone: "America/Santiago" },
  ],
  nextCursor: null,
};

const pending: Answer<"observations.list"> = {
  items: [
    { id: "obs_1", name: "Pleiades", projectId: "prj_sky" },
    { id: "obs_2", name: "M31", projectId: "prj_sky" },
    { id: "obs_3", name: "Crab", projectId: "prj_other" },
  ],
  nextCursor: null,
};

/** A plan made at 18:00 UTC over the next 24 hours (48 px an hour), at two observatories. */
const plan = (fields: Answer<"network.plan"> = {}): Answer<"network.plan"> => ({
  computedAt: "2026-11-29T18:00:00.000Z",
  horizonEnd: "2026-11-30T18:00:00.000Z",
  objective: 0,
  observatories: [
    { observatoryId: "oby_a", timeZone: "Europe/Madrid", nights: [{ darkStart: "2026-11-29T19:00:00.000Z", darkEnd: "2026-11-30T05:00:00.000Z" }] },
    { observatoryId: "oby_b", timeZone: "America/Santiago", nights: [{ darkStart: "2026-11-30T01:00:00.000Z", darkEnd: "2026-11-30T08:00:00.000Z" }] },
  ],
  slots: [
    { observationId: "obs_1", observatoryId: "oby_a", name: "Pleiades", priority: 5, start: "2026-11-29T20:00:00.000Z", end: "2026-11-29T22:00:00.000Z" },
    { observationId: "obs_2", observatoryId: "oby_b", name: "M31", priority: 3, start: "2026-11-30T02:00:00.000Z", end: "2026-11-30T02:30:00.000Z" },
  ],
  unscheduled: [],
  ...fields,
});

const api = (answer: Procedures["network.plan"]) =>
  startApi({ "network.plan": answer, "observatories.list": () => observatories, "observations.list": () => pending });

const row = (name: string) => screen.findByRole("region", { name: `Plan at ${name}` });

const crab = { observationId: "obs_3", observatoryId: "oby_a", name: "Crab", start: "2026-11-29T23:00:00.000Z", end: "2026-11-30T00:00:00.000Z" };

/** The page with its realtime socket, as the app renders it. */
const renderLive = () =>
  renderInApp(
    <RealtimeProvider>
      <NetworkPage />
    </RealtimeProvider>,
    { path: "/network", timeDisplay: "utc" },
  );

/**
 * The page's socket open, and the plan read again on its opening (an event may have gone before it opened): what a test
 * changes after this reaches the page by no read already on its way.
 */
async function socketOpened(stub: Awaited<ReturnType<typeof api>>) {
  await waitFor(() => expect(stub.realtime.connections()).toBe(1));
  await waitFor(() => expect(stub.calls("network.plan")).toHaveLength(2));
}

describe("the network page", () => {
  it("draws each slot as a block in its observatory's row, naming observatory, observation, start and end with the zone, linking to it", async () => {
    await api(() => plan());
    const { user } = renderInApp(<NetworkPage />, { path: "/network", timeDisplay: "utc" });
    expect(await screen.findByText(/^Times in UTC\./)).toBeTruthy();
    const domeA = await row("Dome A");
    const pleiades = await within(domeA).findByRole("link", { name: "Dome A: Pleiades, from Nov 29, 20:00 UTC to Nov 29, 22:00 UTC" });
    expect(pleiades.getAttribute("href")).toBe("/observations/obs_1");
    expect([pleiades.style.left, pleiades.style.width]).toEqual(["96px", "96px"]);
    expect(textOf(pleiades)).toBe("Pleiades");
    const m31 = within(await row("Dome B")).getByRole("link", { name: "Dome B: M31, from Nov 30, 02:00 UTC to Nov 30, 02:30 UTC" });
    expect([m31.style.left, m31.style.width]).toEqual(["384px", "24px"]);
    expect(within(domeA).queryByRole("link", { name: /M31/ })).toBeNull();
    // Coloured by project: both are prj_sky's once the pending observations are known.
    await waitFor(() => expect(m31.style.backgroundColor).toBe(pleiades.style.backgroundColor));
    // By keyboard alone: Tab reaches every block.
    const reached: string[] = [];
    for (let step = 0; step < 10; step++) {
      await user.tab();
      reached.push(document.activeElement?.getAttribute("aria-label") ?? "");
    }
    expect(reached).toEqual(expect.arrayContaining([pleiades.getAttribute("aria-label"), m31.getAttribute("aria-label")]));
  });

  it("draws each observatory's dark periods as bands over the horizon", async () => {
    await api(() => plan());
    renderInApp(<NetworkPage />, { path: "/network", timeDisplay: "utc" });
    const bandA = within(await row("Dome A")).getByRole("img", { name: "Dark from Nov 29, 19:00 UTC to Nov 30, 05:00 UTC" });
    expect([bandA.style.left, bandA.style.width]).toEqual(["48px", "480px"]);
    const bandB = within(await row("Dome B")).getByRole("img", { name: "Dark from Nov 30, 01:00 UTC to Nov 30, 08:00 UTC" });
    expect([bandB.style.left, bandB.style.width]).toEqual(["336px", "336px"]);
  });

  it("lists the unscheduled observations with each observatory's reason in words", async () => {
    await api(() =>
      plan({
        unscheduled: [
          {
            observationId: "obs_3",
            reasons: [
              { observatoryId: "oby_a", code: "PLANNED_LATER", until: "2026-11-30T03:00:00.000Z" },
              { observatoryId: "oby_b", code: "FILTER_MISSING", until: null },
            ],
          },
        ],
      }),
    );
    renderInApp(<NetworkPage />, { path: "/network", timeDisplay: "utc" });
    const crab = await screen.findByRole("listitem", { name: "Crab" });
    expect(within(crab).getByRole("link", { name: "Crab" }).getAttribute("href")).toBe("/observations/obs_3");
    expect([...crab.querySelectorAll("li")].map(textOf)).toEqual([
      "Dome A: The network plan starts it here at Nov 30, 03:00 UTC",
      "Dome B: It asks for a filter this observatory's plugin does not report",
    ]);
  });

  it("says the plan is being made before the first plan", async () => {
    await api(() => plan({ computedAt: null, horizonEnd: null, observatories: [], slots: [] }));
    renderInApp(<NetworkPage />, "/network");
    expect(await screen.findByText("The plan is being made")).toBeTruthy();
    expect(screen.queryByRole("region")).toBeNull();
  });

  it("says there are no observatories when the plan covers none", async () => {
    await api(() => plan({ observatories: [], slots: [] }));
    renderInApp(<NetworkPage />, "/network");
    expect(await screen.findByText("No observatories")).toBeTruthy();
  });

  it("reads the plan again on its interval and draws what changed", async () => {
    let answers = 0;
    const stub = await api(() => (++answers === 1 ? plan() : plan({ slots: [crab] })));
    // A short interval stands for the page's 30 s; what is awaited is the second answer drawn, not a time.
    renderInApp(<NetworkPage refreshMs={200} />, { path: "/network", timeDisplay: "utc" });
    await within(await row("Dome A")).findByRole("link", { name: /Pleiades/ });
    expect(await within(await row("Dome A")).findByRole("link", { name: /^Dome A: Crab/ })).toBeTruthy();
    expect(stub.calls("network.plan").length).toBeGreaterThanOrEqual(2);
    // The pending observations (names and projects for the plan's ids) are read again on the same interval.
    await waitFor(() => expect(stub.calls("observations.list").length).toBeGreaterThanOrEqual(2));
    expect(screen.getByText(/refreshed every 0\.2 seconds\.$/)).toBeTruthy();
  });

  it("reads the plan again as soon as the server says a new one is in force (network.plan_changed), not waiting for its interval", async () => {
    let replanned = false;
    const stub = await api(() => (replanned ? plan({ slots: [crab] }) : plan()));
    // The page's 30 s interval: the test is over long before it, so only the event can bring the new plan.
    renderLive();
    await within(await row("Dome A")).findByRole("link", { name: /Pleiades/ });
    await socketOpened(stub);
    const listsBefore = stub.calls("observations.list").length;
    replanned = true;
    stub.realtime.push("network.plan_changed", { computedAt: "2026-11-29T18:01:00.000Z" });
    expect(await within(await row("Dome A")).findByRole("link", { name: /^Dome A: Crab/ })).toBeTruthy();
    expect(within(await row("Dome A")).queryByRole("link", { name: /Pleiades/ })).toBeNull();
    expect(stub.calls("network.plan")).toHaveLength(3);
    // With the pending observations, which name what the new plan may hold for the first time.
    await waitFor(() => expect(stub.calls("observations.list").length).toBeGreaterThan(listsBefore));
  });

  it("reads the plan again when its socket comes back after a drop: a new plan's event sent meanwhile was never heard", async () => {
    // The new plan is made while the socket is down: its event reaches no one, and the page's 30 s interval is far off.
    const stub = await api(() => (stub.realtime.opened() > 1 ? plan({ slots: [crab] }) : plan()));
    renderLive();
    await within(await row("Dome A")).findByRole("link", { name: /Pleiades/ });
    await waitFor(() => expect(stub.realtime.connections()).toBe(1));
    const listsBefore = stub.calls("observations.list").length;
    stub.realtime.drop();
    expect(await within(await row("Dome A")).findByRole("link", { name: /^Dome A: Crab/ })).toBeTruthy();
    expect(stub.realtime.opened()).toBe(2);
    // With the pending observations, which name what the new plan may hold for the first time.
    await waitFor(() => expect(stub.calls("observations.list").length).toBeGreaterThan(listsBefore));
  });

  it("reads the plan again when the window regains focus", async () => {
    let answers = 0;
    const stub = await api(() => (++answers === 1 ? plan() : plan({ slots: [] })));
    renderInApp(<NetworkPage />, { path: "/network", timeDisplay: "utc" });
    await within(await row("Dome A")).findByRole("link", { name: /Pleiades/ });
    window.dispatchEvent(new Event("visibilitychange"));
    await waitFor(() => expect(within(screen.getByRole("region", { name: "Plan at Dome A" })).queryByRole("link")).toBeNull());
    expect(stub.calls("network.plan")).toHaveLength(2);
  });
});
