// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useNavigate } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { ObservationsPage } from "../pages/ObservationsPage";
import { startApi, type Procedures, type ProcedureOutput } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

const observation = (id: string, name: string, priority: number, status: ProcedureOutput<"observations.list">["items"][number]["status"] = "pending") => ({
  id,
  name,
  priority,
  status,
  observatoryId: "oby_1",
  candidateObservatoryIds: ["oby_1"],
  projectId: "prj_1",
  ownerId: "usr_me",
  createdAt: "2026-11-20T10:00:00.000Z",
  statusChangedAt: "2026-11-20T10:00:00.000Z",
  targets: [{ name: "M 31", ra: 10, dec: 20, exposures: [{ filter: "L", exposureSeconds: 60, count: 1, binning: 1 }] }],
});
const shown = [observation("o1", "Delta field", 1), observation("o2", "Beta field", 9)];

/** The list the server answers, whatever the filter: the filtering itself is the API's (tests/integration/observation-search.test.ts). */
const listApi = (): Procedures => ({
  "auth.me": () => signedIn({ id: "usr_me" }),
  "observations.list": (input: unknown) => ({ items: (input as { from?: string }).from ? [] : shown, nextCursor: null }),
  "observatories.list": () => ({ items: [{ id: "oby_1", name: "Filter dome", timeZone: "UTC" }], nextCursor: null }),
  "projects.list": () => ({ items: [{ id: "prj_1", name: "Filter survey" }], nextCursor: null }),
});

/** The browser's back button, for the page's history. */
function Back() {
  const navigate = useNavigate();
  return (
    <button type="button" onClick={() => void navigate(-1)}>
      Browser back
    </button>
  );
}

const where = () => new URL(screen.getByTestId("where").textContent!, "http://app.test");
const lastListInput = () => api!.calls("observations.list").at(-1) as Record<string, unknown>;

describe("finding observations", () => {
  it("searches, sorts and filters with everything in the URL, asks the API for exactly that, and exports what it shows", async () => {
    api = await startApi(listApi());
    renderInApp(
      <>
        <ObservationsPage />
        <Back />
      </>,
      { path: "/observations", where: true },
    );
    const user = userEvent.setup({ delay: null });
    const table = await screen.findByRole("table", { name: "Observations" });
    expect(
      within(table)
        .getAllByRole("link")
        .map((link) => link.textContent),
    ).toEqual(["Delta field", "Beta field"]);
    expect(lastListInput()).toEqual({ limit: 50 });

    // Search by a target's name, typed: the URL follows once typing pauses, and the API is asked.
    await user.type(screen.getByLabelText("Search"), "ngc 7000");
    await waitFor(() => expect(where().searchParams.get("q")).toBe("ngc 7000"));
    await waitFor(() => expect(lastListInput()).toEqual({ limit: 50, q: "ngc 7000" }));

    // Sort by priority from the column heading, by keyboard; twice turns it round.
    const priority = screen.getByRole("columnheader", { name: "Priority" });
    within(priority).getByRole("button").focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(where().searchParams.get("sort")).toBe("-priority"));
    await waitFor(() => expect(screen.getByRole("columnheader", { name: "Priority" }).getAttribute("aria-sort")).toBe("descending"));
    await waitFor(() => expect(lastListInput()).toEqual({ limit: 50, q: "ngc 7000", sort: "-priority" }));
    await user.clear(screen.getByLabelText("Search"));
    await waitFor(() => expect(where().searchParams.has("q")).toBe(false));
    await user.click(within(screen.getByRole("columnheader", { name: "Priority" })).getByRole("button"));
    await waitFor(() => expect(where().searchParams.get("sort")).toBe("priority"));
    await waitFor(() => expect(screen.getByRole("columnheader", { name: "Priority" }).getAttribute("aria-sort")).toBe("ascending"));
    await waitFor(() => expect(lastListInput()).toEqual({ limit: 50, sort: "priority" }));

    // Statuses: a choice is a step in the history, which back undoes; the exports follow the view.
    await user.click(screen.getByText("Any status"));
    await user.click(screen.getByRole("checkbox", { name: "Cancelled" }));
    await waitFor(() => expect(where().searchParams.get("status")).toBe("cancelled"));
    await waitFor(() => expect((screen.getByRole("checkbox", { name: "Cancelled" }) as HTMLInputElement).checked).toBe(true));
    await waitFor(() => expect(lastListInput()).toEqual({ limit: 50, sort: "priority", status: "cancelled" }));
    const csv = new URL(screen.getByRole("link", { name: "Export CSV" }).getAttribute("href")!, "http://app.test");
    expect(csv.pathname).toBe("/observations/export");
    expect(Object.fromEntries(csv.searchParams)).toEqual({ status: "cancelled", sort: "priority", format: "csv" });
    await user.click(screen.getByRole("button", { name: "Browser back" }));
    await waitFor(() => expect(where().searchParams.has("status")).toBe(false));
    expect(where().searchParams.get("sort")).toBe("priority");

    // The owner and a creation range go into the URL too; a day with nothing shows so, and the JSON export asks for it.
    await user.selectOptions(screen.getByLabelText("Owner"), "Me");
    await waitFor(() => expect(where().searchParams.get("ownerId")).toBe("usr_me"));
    await user.type(screen.getByLabelText("Created from"), "2040-01-02");
    await waitFor(() => expect(where().searchParams.get("from")).toBe("2040-01-02"));
    await screen.findByText("No observations match");
    const from = new Date(2040, 0, 2).toISOString();
    expect(lastListInput()).toEqual({ limit: 50, sort: "priority", ownerId: "usr_me", from });
    const json = new URL(screen.getByRole("link", { name: "Export JSON" }).getAttribute("href")!, "http://app.test");
    expect(Object.fromEntries(json.searchParams)).toEqual({ ownerId: "usr_me", from, sort: "priority", format: "json" });
  });

  it("opens on the view its URL holds, as after a reload", async () => {
    api = await startApi(listApi());
    renderInApp(<ObservationsPage />, { path: "/observations?q=ngc+7000&sort=priority&status=cancelled", where: true });
    await screen.findByRole("table", { name: "Observations" });
    expect((screen.getByLabelText("Search") as HTMLInputElement).value).toBe("ngc 7000");
    expect(screen.getByRole("columnheader", { name: "Priority" }).getAttribute("aria-sort")).toBe("ascending");
    expect(api.calls("observations.list")).toEqual([{ limit: 50, q: "ngc 7000", status: "cancelled", sort: "priority" }]);
  });
});

describe("operating observations from the table", () => {
  it("pauses and resumes the selected rows, chosen by keyboard or all at once, and reports each row's result", async () => {
    const rows = [observation("mine", "Mine", 5), observation("a", "Theirs A", 5), observation("b", "Theirs B", 5)];
    api = await startApi({
      ...listApi(),
      "observations.list": () => ({ items: rows.map((row) => ({ ...row })), nextCursor: null }),
      // The caller may operate only their own: the others are refused as the single operation refuses them.
      "observations.bulk": (input: unknown) => {
        const { ids, action } = input as { ids: string[]; action: "pause" | "resume" };
        return {
          results: ids.map((id) => {
            if (id !== "mine") return { id, ok: false, code: "FORBIDDEN" };
            rows[0]!.status = action === "pause" ? "paused" : "pending";
            return { id, ok: true };
          }),
        };
      },
    });
    renderInApp(<ObservationsPage />, { path: "/observations", where: true });
    const user = userEvent.setup({ delay: null });
    const rowOf = (name: string) => screen.getByRole("link", { name }).closest("tr")!;
    await screen.findByRole("link", { name: "Mine" });
    screen.getByRole("checkbox", { name: "Select Mine" }).focus();
    await user.keyboard(" ");
    const bar = await screen.findByRole("region", { name: "Bulk actions" });
    await within(bar).findByText("1 observation selected");
    await user.click(screen.getByRole("checkbox", { name: "Select every observation shown" }));
    await within(bar).findByText("3 observations selected");

    await user.click(within(bar).getByRole("button", { name: "Pause" }));
    await within(bar).findByText("1 paused, 2 refused: not allowed.");
    expect(api.calls("observations.bulk")).toEqual([{ ids: ["mine", "a", "b"], action: "pause" }]);
    for (const name of ["Theirs A", "Theirs B"]) expect(within(bar).getByText(`${name}: not allowed`, { exact: false })).toBeTruthy();
    await waitFor(() => expect(within(rowOf("Mine")).getByText("Paused", { exact: true })).toBeTruthy());
    expect(rowOf("Mine").querySelector("[data-bulk-result]")?.getAttribute("data-bulk-result")).toBe("ok");
    for (const name of ["Theirs A", "Theirs B"]) {
      expect(rowOf(name).querySelector("[data-bulk-result]")?.getAttribute("data-bulk-result")).toBe("FORBIDDEN");
      expect(within(rowOf(name)).getByText("Pending", { exact: true })).toBeTruthy();
    }

    await user.click(within(bar).getByRole("button", { name: "Resume" }));
    await within(bar).findByText("1 resumed, 2 refused: not allowed.");
    await waitFor(() => expect(within(rowOf("Mine")).getByText("Pending", { exact: true })).toBeTruthy());
    await user.click(within(bar).getByRole("button", { name: "Clear selection" }));
    await within(bar).findByText("0 observations selected");
  });
});
