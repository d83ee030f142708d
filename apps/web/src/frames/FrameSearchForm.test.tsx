// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { emptyFrameSearch, frameSearchInput, type FrameSearchView } from "./frame-search";
import { FrameSearchForm } from "./FrameSearchForm";
import { startApi, StubRefusal } from "../test-support/api";
import { renderInApp } from "../test-support/render";

const M31 = { name: "M 31", designation: "M 31", kind: "galaxy", catalog: "Messier", ra: 10.684708, dec: 41.26875, epoch: "J2000", aliases: [] } as const;

let api: Awaited<ReturnType<typeof startApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

function renderForm(view: FrameSearchView = emptyFrameSearch) {
  const onSearch = vi.fn<(view: FrameSearchView) => void>();
  renderInApp(
    <FrameSearchForm
      view={view}
      observatories={[{ id: "obs-a", name: "La Palma dome" }]}
      projects={[{ id: "prj-a", name: "Nebula survey" }]}
      onSearch={onSearch}
    />,
  );
  return { onSearch, user: userEvent.setup({ delay: null }) };
}

/** The API input of the search the form handed over last. */
const searched = (onSearch: ReturnType<typeof renderForm>["onSearch"]) => frameSearchInput(onSearch.mock.lastCall![0]);

describe("the frame search form", () => {
  it("searches around sexagesimal coordinates in arcminutes, with every filter in the query input", async () => {
    api = await startApi({});
    const { onSearch, user } = renderForm();
    await user.click(screen.getByRole("radio", { name: "Coordinates" }));
    await user.type(screen.getByLabelText("Right ascension (RA)"), "00:42:44.3");
    await user.type(screen.getByLabelText("Declination (Dec)"), "+41 16 09");
    await user.clear(screen.getByLabelText("Radius"));
    await user.type(screen.getByLabelText("Radius"), "45");
    await user.type(screen.getByLabelText("Filter"), "Ha");
    fireEvent.change(screen.getByLabelText("Taken from (UTC day)"), { target: { value: "2026-11-01" } });
    fireEvent.change(screen.getByLabelText("Taken to (UTC day)"), { target: { value: "2026-11-02" } });
    await user.selectOptions(screen.getByLabelText("Grade"), "rejected");
    await user.selectOptions(screen.getByLabelText("Observatory"), "La Palma dome");
    await user.selectOptions(screen.getByLabelText("Project"), "Nebula survey");
    await user.click(screen.getByRole("button", { name: "Search" }));

    await waitFor(() => expect(onSearch).toHaveBeenCalledTimes(1));
    const { input, errors } = searched(onSearch);
    expect(errors).toEqual({});
    expect(input.ra).toBeCloseTo(10.684583, 6);
    expect(input.dec).toBeCloseTo(41.269167, 6);
    expect(input).toMatchObject({
      radius: 0.75,
      filter: "Ha",
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-03T00:00:00.000Z",
      grade: "rejected",
      observatoryId: "obs-a",
      projectId: "prj-a",
    });
  });

  it("looks a target's name up in the catalog and searches around its position", async () => {
    api = await startApi({ "targets.search": () => ({ items: [] }), "targets.resolve": () => M31 });
    const { onSearch, user } = renderForm();
    await user.type(screen.getByRole("combobox", { name: "Target name" }), "m31");
    await user.selectOptions(screen.getByLabelText("Radius unit"), "degrees (°)");
    await user.clear(screen.getByLabelText("Radius"));
    await user.type(screen.getByLabelText("Radius"), "2{Enter}");

    await waitFor(() => expect(onSearch).toHaveBeenCalledTimes(1));
    expect(onSearch.mock.lastCall![0]).toMatchObject({ target: "m31", ra: "00h 42m 44.33s", dec: "+41° 16′ 07.5″", unit: "deg" });
    const { input } = searched(onSearch);
    expect(input.ra).toBeCloseTo(M31.ra, 4);
    expect(input.dec).toBeCloseTo(M31.dec, 4);
    expect(input.radius).toBe(2);
    expect(api.received.map((request) => new URL(request.path, api!.origin).pathname)).toContain("/trpc/targets.resolve");
    expect(screen.getByText(/^Position of M 31, galaxy from the catalog, J2000/)).toBeTruthy();
  });

  it("says so at the name when the catalog does not know it, and searches nothing", async () => {
    api = await startApi({
      "targets.search": () => ({ items: [] }),
      "targets.resolve": () => {
        throw new StubRefusal("TARGET_NOT_FOUND", 404, "No object of that name in the catalog");
      },
    });
    const { onSearch, user } = renderForm();
    const name = screen.getByRole("combobox", { name: "Target name" });
    await user.type(name, "Planet X");
    await user.click(screen.getByRole("button", { name: "Search" }));

    await screen.findByText("“Planet X” is not in the catalog: search by its coordinates instead.");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    await waitFor(() => expect(document.activeElement).toBe(name));
    expect(onSearch).not.toHaveBeenCalled();
  });

  it("refuses a radius past 10° in either unit and coordinates it cannot read, in words at each field, focus on the first", async () => {
    api = await startApi({});
    const { onSearch, user } = renderForm();
    await user.click(screen.getByRole("radio", { name: "Coordinates" }));
    const ra = screen.getByLabelText("Right ascension (RA)");
    const radius = screen.getByLabelText("Radius");
    await user.type(ra, "25:00:00");
    await user.type(screen.getByLabelText("Declination (Dec)"), "-05 23 28");
    await user.clear(radius);
    await user.type(radius, "11");
    await user.selectOptions(screen.getByLabelText("Radius unit"), "degrees (°)");
    await user.click(screen.getByRole("button", { name: "Search" }));

    await screen.findByText("RA must be less than 24h.");
    expect(screen.getByText("Radius must be at most 10° (600′).")).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(ra));
    expect(onSearch).not.toHaveBeenCalled();

    await user.clear(ra);
    await user.type(ra, "05h 35m 17s");
    await user.clear(radius);
    await user.type(radius, "601");
    await user.selectOptions(screen.getByLabelText("Radius unit"), "arcminutes (′)");
    await user.click(screen.getByRole("button", { name: "Search" }));
    await screen.findByText("Radius must be at most 10° (600′).");
    await waitFor(() => expect(document.activeElement).toBe(radius));
    expect(onSearch).not.toHaveBeenCalled();

    await user.clear(radius);
    await user.type(radius, "600");
    await user.click(screen.getByRole("button", { name: "Search" }));
    await waitFor(() => expect(onSearch).toHaveBeenCalledTimes(1));
    expect(searched(onSearch).input.radius).toBe(10);
    expect(searched(onSearch).input.ra).toBeCloseTo(83.820833, 6);
  });
});
