// @vitest-environment happy-dom
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
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
});
