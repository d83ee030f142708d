// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { RealtimeProvider } from "../../lib/realtime";
import { ObservationLiveUpdates } from "../../observations/ObservationLiveUpdates";
import { startApi, type Answer } from "../../test-support/api";
import { renderInApp } from "../../test-support/render";
import { observatoryFixture } from "../observatory-fixture";
import { TonightView } from "./TonightView";

const HOUR = 3_600_000;
const at = (from: number, hours: number) => new Date(from + hours * HOUR).toISOString();

/** Tonight's plan, its sunset `fromNow` hours from the present (negative: the night is in progress). */
function planFrom(fromNow: number): Answer<"observatories.plan"> {
  const sunset = Date.now() + fromNow * HOUR;
  return {
    observatoryId: "oby_1",
    timeZone: "UTC",
    date: at(sunset, 0).slice(0, 10),
    night: {
      sunset: at(sunset, 0),
      civilDusk: at(sunset, 0.5),
      nauticalDusk: at(sunset, 1),
      darkStart: at(sunset, 1.5),
      darkEnd: at(sunset, 10),
      nauticalDawn: at(sunset, 10.5),
      civilDawn: at(sunset, 11),
      sunrise: at(sunset, 11.5),
    },
    moon: { illumination: 0.4, rise: null, set: null },
    slots: [
      {
        observationId: "obs-1",
        name: "Polar field",
        priority: 7,
        status: "pending",
        ownerId: "usr_owner",
        ownerName: "Tess Tonight",
        start: at(sunset, 2),
        end: at(sunset, 3),
      },
    ],
    unscheduled: [],
    altitude: [],
  };
}

describe("the Tonight view", () => {
  it("marks the present moment on the night in progress, and not on a night still to come", async () => {
    let plan = planFrom(3);
    await startApi({ "observatories.plan": () => plan });
    const before = renderInApp(<TonightView observatory={observatoryFixture()} />, "/observatories/oby_1?tab=tonight");
    const legend = await screen.findByRole("list", { name: "Legend" });
    within(legend).getByText("Planned");
    expect(within(legend).queryByText("Now")).toBeNull();
    before.unmount();

    // The same night, now in its middle.
    plan = planFrom(-5);
    renderInApp(<TonightView observatory={observatoryFixture()} />, "/observatories/oby_1?tab=tonight");
    await within(await screen.findByRole("list", { name: "Legend" })).findByText("Now");
  });

  it("reads the night again as soon as the server says a new network plan is in force (network.plan_changed)", async () => {
    let replannedYet = false;
    const before = planFrom(3);
    const replanned = { ...before, slots: [{ ...before.slots![0]!, observationId: "obs-2", name: "Crab follow-up" }] };
    const stub = await startApi({ "observatories.plan": () => (replannedYet ? replanned : before) });
    // The view's own interval is a minute: the test ends long before it, so only the event can bring the new night.
    renderInApp(
      <RealtimeProvider>
        <ObservationLiveUpdates />
        <TonightView observatory={observatoryFixture()} />
      </RealtimeProvider>,
      "/observatories/oby_1?tab=tonight",
    );
    // The table view: its rows' links name each slot (the timeline draws its labels to fit a width happy-dom does not lay out).
    (await screen.findByRole("switch", { name: "Table view" })).click();
    await screen.findByRole("link", { name: /Polar field/ });
    await waitFor(() => expect(stub.realtime.connections()).toBe(1));
    replannedYet = true;
    stub.realtime.push("network.plan_changed", { computedAt: new Date().toISOString() });
    await screen.findByRole("link", { name: /Crab follow-up/ });
    expect(screen.queryByRole("link", { name: /Polar field/ })).toBeNull();
  });
});
