// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../../test-support/api";
import { descriptionOf, textOf } from "../../test-support/render";
import { renderWizard, wizardApi, wizardObservatory } from "./wizard-test-support";

const observatory = (id: string, name: string, filters: string[] | null, timeZone = "UTC") =>
  wizardObservatory(id, name, { connection: { online: false }, filters, timeZone });

const NORTH = observatory("oby_north", "North", ["L", "R", "G", "B"], "Australia/Sydney");
const SOUTH = observatory("oby_south", "South", ["Ha", "OIII", "SII"]);
const SILENT = observatory("oby_silent", "Silent", null);
// One the user may view but not observe at: never offered.
const LOOKOUT = wizardObservatory("oby_lookout", "Lookout", {
  myPermissions: { can_view: true, can_observe: false, can_operate: false, can_admin: false },
});

const optionsOf = (select: HTMLElement) =>
  within(select)
    .getAllByRole("option")
    .map((option) => option.textContent);

/** The wizard's first step, named and in its project, once the observatories are listed. */
async function firstStep(observatories: ReturnType<typeof wizardObservatory>[]) {
  const api = await startApi(wizardApi(observatories));
  const wizard = renderWizard();
  await waitFor(() => expect(screen.getAllByRole("option", { name: observatories[0]!.name! }).length).toBeGreaterThan(0));
  await wizard.user.type(screen.getByLabelText(/^Name/), "Anywhere");
  await wizard.user.selectOptions(screen.getByLabelText(/^Project/), "prj_1");
  return { api, ...wizard };
}

describe("the submission wizard's any of several observatories", () => {
  it("offers by keyboard where one may observe, with reported filters; asks for 2; offers their filters; sends candidateObservatoryIds", async () => {
    const { api, user, next } = await firstStep([NORTH, SOUTH, SILENT, LOOKOUT]);
    const several = screen.getByRole("radio", { name: "Any of several" });
    several.focus();
    await user.keyboard(" ");
    expect(screen.queryByLabelText(/^Observatory/)).toBeNull();
    const group = screen.getByRole("group", { name: "Any of these" });
    const boxes = within(group).getAllByRole("checkbox");
    expect(boxes.map((box) => box.getAttribute("value"))).toEqual(["oby_north", "oby_south", "oby_silent"]);
    expect(descriptionOf(within(group).getByRole("checkbox", { name: "North" }))).toBe("Filters: L, R, G, B.");
    expect(descriptionOf(within(group).getByRole("checkbox", { name: "South" }))).toBe("Filters: Ha, OIII, SII.");
    expect(descriptionOf(within(group).getByRole("checkbox", { name: "Silent" }))).toBe("Reports no filters: takes any.");

    // Tab to South and tick it with the space bar: one is not enough, and Next says so at the first box.
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(within(group).getByRole("checkbox", { name: "South" }));
    await user.keyboard(" ");
    expect(descriptionOf(document.activeElement as HTMLElement)).toBe("Filters: Ha, OIII, SII. Tick at least 2 (1 ticked), or choose just one.");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("One field needs a change before you can go on.");
    await waitFor(() => expect(document.activeElement).toBe(boxes[0]));
    await user.keyboard(" ");
    await waitFor(() => expect(boxes[0]!.getAttribute("aria-invalid")).toBeNull());
    expect(textOf(group)).toContain("2 ticked (2 to 20).");
    await next(2);

    // The filters both report, each saying which of the two lacks it.
    const filter = screen.getByRole("combobox", { name: "Filter" });
    expect(optionsOf(filter)).toEqual(["L", "R", "G", "B", "Ha", "OIII", "SII"]);
    expect(descriptionOf(filter)).toBe("Not at South.");
    await user.selectOptions(filter, "Ha");
    expect(descriptionOf(filter)).toBe("Not at North.");
    expect(filter.getAttribute("aria-invalid")).toBeNull();
    await user.type(screen.getByLabelText("Right ascension (RA)"), "05:35:17");
    await user.type(screen.getByLabelText("Declination (Dec)"), "-05:23:28");
    await user.type(screen.getByRole("combobox", { name: "Target name" }), "Orion Nebula");
    await user.keyboard("{Escape}");
    await next(3);
    // Its times are typed on the clocks of the first of them, and said so.
    await user.click(screen.getByRole("radio", { name: /^Fixed time/ }));
    expect(screen.getByText("In the time zone of its first observatory, Australia/Sydney.")).toBeTruthy();
    await user.click(screen.getByRole("radio", { name: /^Flexible/ }));
    await next(4);
    await next(5);

    const observation = screen.getByRole("region", { name: "Observation" });
    expect(textOf(observation)).toContain("Any of these 2, as the network plan chooses:");
    expect(within(within(observation).getByRole("list")).getAllByRole("listitem").map(textOf)).toEqual(["North", "South"]);
    // The estimate by the first one's settings (120 s slew + 60 s + 10 s readout), as the API's; the forecast asked with both.
    expect(textOf(await within(screen.getByRole("region", { name: "Estimate" })).findByText(/per run/))).toContain(
      "3 min 10 s per run at North, the first of its observatories",
    );
    await waitFor(() => expect(api.calls("observations.forecastDraft").length).toBeGreaterThan(0));
    expect(api.calls("observations.forecastDraft").at(-1)).toMatchObject({ candidateObservatoryIds: ["oby_north", "oby_south"] });
    expect(api.calls("observations.forecastDraft").at(-1)).not.toHaveProperty("observatoryId");

    await user.click(screen.getByRole("button", { name: "Submit observation" }));
    await screen.findByText("Observation page");
    const sent = api.calls("observations.create")[0]!;
    expect(sent).toMatchObject({ candidateObservatoryIds: ["oby_north", "oby_south"], targets: [{ exposures: [{ filter: "Ha" }] }] });
    expect(sent).not.toHaveProperty("observatoryId");
  });

  it("says when more than 20 are ticked and goes on once 20 are; back to just one, the first ticked is chosen", async () => {
    const many = Array.from({ length: 21 }, (_, index) => observatory(`oby_${String(index).padStart(2, "0")}`, `Site ${index + 1}`, ["L"]));
    const { user, next } = await firstStep(many);
    await user.click(screen.getByRole("radio", { name: "Any of several" }));
    const group = screen.getByRole("group", { name: "Any of these" });
    for (const box of within(group).getAllByRole("checkbox")) await user.click(box);
    expect(await within(group).findByText("Tick at most 20: 21 are ticked.")).toBeTruthy();
    expect(textOf(group)).toContain("21 ticked (2 to 20).");
    await user.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("One field needs a change before you can go on.");
    expect(screen.getByRole("heading", { level: 2, name: /^Step 1 of 5/ })).toBeTruthy();
    await user.click(within(group).getByRole("checkbox", { name: "Site 1" }));
    await waitFor(() => expect(within(group).queryByText(/Tick at most/)).toBeNull());
    await next(2);

    await user.click(within(screen.getByRole("list", { name: "Steps" })).getByRole("button", { name: "1. Observation" }));
    await user.click(screen.getByRole("radio", { name: "Just one" }));
    expect((screen.getByLabelText(/^Observatory/) as HTMLSelectElement).value).toBe("oby_01");
  });
});
