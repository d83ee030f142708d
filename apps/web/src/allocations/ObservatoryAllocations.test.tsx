// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { ObservatoryAllocations } from "./ObservatoryAllocations";
import { ProjectUsage } from "./ProjectUsage";

const PERIOD = { periodStart: "2026-11-29T00:00:00.000Z", periodEnd: "2027-05-29T00:00:00.000Z" };
const meterText = (name: string) => screen.getByRole("meter", { name }).getAttribute("aria-valuetext");

describe("an observatory's time allocations", () => {
  it("grants, changes and removes a project's hours, refusing none at all beside the field", async () => {
    let allocations: Array<{ projectId: string; projectName: string; hours: number; usedHours: number } & typeof PERIOD> = [];
    const api = await startApi({
      "observatories.allocations": () => ({ items: allocations }),
      "projects.list": () => ({ items: [{ id: "prj-1", name: "Variables" }], nextCursor: null }),
      "observatories.putAllocation": ({ projectId, hours }) => {
        allocations = [{ projectId, projectName: "Variables", hours, usedHours: 0, ...PERIOD }];
        return allocations[0]!;
      },
      "observatories.deleteAllocation": () => {
        allocations = [];
        return { ok: true } as const;
      },
    });
    const { user } = renderInApp(<ObservatoryAllocations observatoryId="obs-1" canAdmin />);
    await screen.findByText("No allocations");

    await user.click(screen.getByRole("button", { name: "Grant time" }));
    const dialog = screen.getByRole("dialog", { name: "Grant observing time" });
    await within(dialog).findByRole("option", { name: "Variables" });
    await user.selectOptions(within(dialog).getByLabelText(/^Project/), "Variables");
    await user.type(within(dialog).getByLabelText(/^Hours/), "0");
    await user.click(within(dialog).getByRole("button", { name: "Grant time" }));
    await within(dialog).findByText("Give a number of hours above 0.");
    expect(api.calls("observatories.putAllocation")).toEqual([]);
    await user.clear(within(dialog).getByLabelText(/^Hours/));
    await user.type(within(dialog).getByLabelText(/^Hours/), "10");
    await user.click(within(dialog).getByRole("button", { name: "Grant time" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Grant observing time" })).toBeNull());
    await waitFor(() => expect(meterText("Hours used by Variables")).toBe("0 h of 10 h"));
    expect(api.calls("observatories.putAllocation")).toEqual([{ id: "obs-1", projectId: "prj-1", hours: 10 }]);

    await user.click(screen.getByRole("button", { name: "Change the allocation of Variables" }));
    const change = screen.getByRole("dialog", { name: "Change the allocation of Variables" });
    await user.clear(within(change).getByLabelText(/^Hours/));
    await user.type(within(change).getByLabelText(/^Hours/), "12.5");
    await user.click(within(change).getByRole("button", { name: "Save allocation" }));
    await waitFor(() => expect(meterText("Hours used by Variables")).toBe("0 h of 12.5 h"));
    expect(api.calls("observatories.putAllocation").at(-1)).toMatchObject({ projectId: "prj-1", hours: 12.5 });

    await user.click(screen.getByRole("button", { name: "Remove the allocation of Variables" }));
    await user.click(within(screen.getByRole("dialog", { name: "Remove allocation?" })).getByRole("button", { name: "Remove allocation" }));
    await screen.findByText("No allocations");
    expect(api.calls("observatories.deleteAllocation")).toEqual([{ id: "obs-1", projectId: "prj-1" }]);
  });
});

describe("a project's usage", () => {
  it("shows each observatory's hours used of allocated, unlimited without an allocation, and what waiting observations need", async () => {
    await startApi({
      "projects.usage": () => ({
        items: [
          { observatoryId: "a", observatoryName: "Dome A", allocatedHours: 12.5, usedHours: 0, pendingHours: 0.54 },
          { observatoryId: "b", observatoryName: "Dome B", allocatedHours: null, usedHours: 0, pendingHours: 0 },
        ],
      }),
    });
    renderInApp(<ProjectUsage projectId="prj-1" />);
    const usage = await screen.findByRole("table", { name: "Usage per observatory" });
    const row = (name: string) =>
      within(usage)
        .getAllByRole("row")
        .find((candidate) => candidate.textContent?.includes(name))!;
    expect(within(row("Dome A")).getByRole("meter").getAttribute("aria-valuetext")).toBe("0 h of 12.5 h");
    within(row("Dome A")).getByText("0.54 h");
    within(row("Dome B")).getByText("0 h used · unlimited");
  });
});
