// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { startApi } from "../../test-support/api";
import { descriptionOf, renderInApp } from "../../test-support/render";
import { FilterField, type FilterSite } from "./FilterField";
import { renderWizard, wizardApi, wizardObservatory } from "./wizard-test-support";

const north: FilterSite = { id: "oby_north", name: "North", filters: ["L", "R", "G", "B"] };
const south: FilterSite = { id: "oby_south", name: "South", filters: ["Ha", "OIII", "SII"] };
const silent: FilterSite = { id: "oby_silent", name: "Silent", filters: null };

/** The field as a form holds it: its value in state, the last value chosen shown beside it. */
function Harness({ sites, initial = "L" }: { sites: FilterSite[]; initial?: string }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <FilterField
        name="targets.0.exposures.0.filter"
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onBlur={() => undefined}
        sites={sites}
      />
      <output data-testid="value">{value}</output>
    </>
  );
}

const optionsOf = (select: HTMLElement) =>
  within(select)
    .getAllByRole("option")
    .map((option) => option.textContent);

describe("an exposure's filter field", () => {
  it("offers only the filters its observatory reports, reached and chosen with the keyboard", async () => {
    const { user } = renderInApp(<Harness sites={[north]} />);
    const select = screen.getByRole("combobox", { name: "Filter" });
    expect(select.tagName).toBe("SELECT");
    expect(optionsOf(select)).toEqual(["L", "R", "G", "B"]);
    await user.tab();
    expect(document.activeElement).toBe(select);
    await user.selectOptions(select, "G");
    expect(screen.getByTestId("value").textContent).toBe("G");
    expect(select.getAttribute("aria-invalid")).toBeNull();
  });

  it("is free text where the observatory reported no filters, or where none is chosen yet", async () => {
    const { user, unmount } = renderInApp(<Harness sites={[silent]} />);
    const field = screen.getByRole("textbox", { name: "Filter" });
    await user.clear(field);
    await user.type(field, "Hα");
    expect(screen.getByTestId("value").textContent).toBe("Hα");
    unmount();
    renderInApp(<Harness sites={[]} />);
    expect(screen.getByRole("textbox", { name: "Filter" })).toBeTruthy();
  });

  it("keeps a filter its only observatory lacks selectable, and says so in the words the server refuses it with", () => {
    renderInApp(<Harness sites={[north]} initial="Ha" />);
    const select = screen.getByRole("combobox", { name: "Filter" }) as HTMLSelectElement;
    expect(select.value).toBe("Ha");
    expect(optionsOf(select)).toEqual(["Ha", "L", "R", "G", "B"]);
    expect(select.getAttribute("aria-invalid")).toBe("true");
    expect(descriptionOf(select)).toBe("North has no “Ha” filter: choose one of L, R, G, B.");
  });

  it("over several observatories, offers every filter reported and says which observatories lack the one chosen", async () => {
    const east: FilterSite = { id: "oby_east", name: "East", filters: ["l", "Ha"] };
    const { user, unmount } = renderInApp(<Harness sites={[north, south, east]} />);
    const select = screen.getByRole("combobox", { name: "Filter" });
    // Each filter once, names compared case-insensitively.
    expect(optionsOf(select)).toEqual(["L", "R", "G", "B", "Ha", "OIII", "SII"]);
    expect(descriptionOf(select)).toBe("Not at South.");
    await user.selectOptions(select, "Ha");
    expect(descriptionOf(select)).toBe("Not at North.");
    await user.selectOptions(select, "OIII");
    expect(descriptionOf(select)).toBe("Not at North and East.");
    expect(select.getAttribute("aria-invalid")).toBeNull();
    unmount();
    // One that reported none takes any filter: free text, still saying who lacks what is typed.
    const typed = renderInApp(<Harness sites={[north, south, silent]} initial="" />);
    await typed.user.type(screen.getByRole("textbox", { name: "Filter" }), "V");
    expect(descriptionOf(screen.getByRole("textbox", { name: "Filter" }))).toBe("Not at North and South.");
  });

  it("says a filter none of several observatories has is an error", () => {
    renderInApp(<Harness sites={[north, south]} initial="V" />);
    const select = screen.getByRole("combobox", { name: "Filter" });
    expect(select.getAttribute("aria-invalid")).toBe("true");
    expect(descriptionOf(select)).toBe("North and South have no “V” filter.");
  });
});

describe("the submission wizard's filters", () => {
  const observatory = (id: string, name: string, filters: string[] | null) => wizardObservatory(id, name, { connection: { online: true }, filters });

  it("offers the chosen observatory's filters, free text at one that reported none, and sends the one chosen", async () => {
    const api = await startApi(wizardApi([observatory("oby_north", "North", ["L", "R", "G", "B", "Ha"]), observatory("oby_silent", "Silent", null)]));
    const { user, next } = renderWizard();
    await waitFor(() => expect(screen.getAllByRole("option", { name: /^North/ }).length).toBeGreaterThan(0));
    await user.type(screen.getByLabelText(/^Name/), "Narrowband");
    await user.selectOptions(screen.getByLabelText(/^Project/), "prj_1");
    await user.selectOptions(screen.getByLabelText(/^Observatory/), "oby_silent");
    await next(2);
    expect(screen.getByRole("textbox", { name: "Filter" })).toBeTruthy();
    const steps = screen.getByRole("list", { name: "Steps" });
    await user.click(within(steps).getByRole("button", { name: "1. Observation" }));
    await user.selectOptions(screen.getByLabelText(/^Observatory/), "oby_north");
    await user.click(within(steps).getByRole("button", { name: "2. Targets" }));
    const filter = screen.getByRole("combobox", { name: "Filter" });
    expect(optionsOf(filter)).toEqual(["L", "R", "G", "B", "Ha"]);
    await user.selectOptions(filter, "Ha");
    await user.type(screen.getByLabelText("Right ascension (RA)"), "05:35:17");
    await user.type(screen.getByLabelText("Declination (Dec)"), "-05:23:28");
    await user.type(screen.getByRole("combobox", { name: "Target name" }), "Orion Nebula");
    await user.keyboard("{Escape}");
    await next(3);
    await next(4);
    await next(5);
    await user.click(screen.getByRole("button", { name: "Submit observation" }));
    await screen.findByText("Observation page");
    expect(api.calls("observations.create")[0]).toMatchObject({ observatoryId: "oby_north", targets: [{ exposures: [{ filter: "Ha" }] }] });
  });
});
