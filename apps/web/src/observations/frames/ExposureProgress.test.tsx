// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderInApp, textOf } from "../../test-support/render";
import { ExposureProgress } from "./ExposureProgress";
import { RepeatedAsLine, RepeatOfLine } from "./RepeatOf";

const cells = (row: Element) => [...row.querySelectorAll("td")].map((cell) => textOf(cell).replace(/^(Wanted|Taken|Accepted) /, ""));

describe("an observation's progress", () => {
  it("shows each exposure line with the frames wanted, taken and accepted, and how many are still to accept", () => {
    renderInApp(
      <ExposureProgress
        lines={[
          { targetName: "M45", filter: "L", exposureSeconds: 60, desired: 10, acquired: 8, accepted: 6 },
          { targetName: "M45", filter: "Ha", exposureSeconds: 300, desired: 4, acquired: 5, accepted: 4 },
        ]}
      />,
    );
    const table = screen.getByLabelText("Progress per exposure line");
    expect([...table.querySelectorAll("th")].map(textOf)).toEqual(["Target", "Exposure", "Wanted", "Taken", "Accepted", "Left"]);
    expect([...table.querySelectorAll("tbody tr")].map(cells)).toEqual([
      ["M45", "L · 60 s", "10", "8", "6", "4 more to accept"],
      ["M45", "Ha · 300 s", "4", "5", "4", "Done"],
    ]);
  });

  it("links a repeat to the observation it repeats, by name", () => {
    renderInApp(<RepeatOfLine id="obs-1" name="Pleiades" />);
    const link = screen.getByRole("link");
    expect(textOf(link.parentElement)).toBe("Repeat of Pleiades, for the exposures it did not get accepted.");
    expect(link.getAttribute("href")).toBe("/observations/obs-1");
  });

  it("links an observation to the repeat made of its missing exposures, by name", () => {
    renderInApp(<RepeatedAsLine id="obs-2" name="Pleiades (repeat 1)" />);
    const link = screen.getByRole("link");
    expect(textOf(link.parentElement)).toBe("Its exposures without an accepted frame are repeated in Pleiades (repeat 1).");
    expect(link.getAttribute("href")).toBe("/observations/obs-2");
  });
});
