// @vitest-environment happy-dom
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderInApp } from "../test-support/render";
import { observatoryFixture } from "./observatory-fixture";
import { ObservatoryOverview } from "./ObservatoryOverview";

describe("an observatory's overview", () => {
  it("lists the filters its plugin reports, and says when it reported none", () => {
    const { unmount } = renderInApp(<ObservatoryOverview observatory={observatoryFixture({ filters: ["L", "R", "G", "B", "Ha"] })} ownerName="Owner Olga" />);
    const filters = screen.getByRole("list", { name: "Filters its plugin reports" });
    expect(
      within(filters)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(["L", "R", "G", "B", "Ha"]);
    unmount();
    renderInApp(<ObservatoryOverview observatory={observatoryFixture({ filters: null })} ownerName="Owner Olga" />);
    expect(screen.getByText("Not reported: observations may ask for any filter")).toBeTruthy();
  });
});
