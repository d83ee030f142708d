// @vitest-environment happy-dom
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes, useLocation } from "react-router-dom";
import { afterEach, describe, expect, it } from "vitest";
import { foundFrame } from "../frames/frame-test-support";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { FramesPage } from "./FramesPage";

let api: Awaited<ReturnType<typeof startApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

/** Where the page's router is, for the test to read. */
function Where() {
  const location = useLocation();
  return <output data-testid="where">{`${location.pathname}${location.search}`}</output>;
}

function renderPage(path: string) {
  renderInApp(
    <>
      <Routes>
        <Route path="/frames" element={<FramesPage />} />
      </Routes>
      <Where />
    </>,
    path,
  );
}

const page = <Item,>(items: Item[], nextCursor: string | null = null) => ({ items, nextCursor });
/** What the page reads besides the frames: one observatory (in Tokyo), no project, the frames' observation and its files. */
const surroundings = {
  "observatories.list": () => page([{ id: "obs-a", name: "Tokyo dome", timeZone: "Asia/Tokyo" }]),
  "projects.list": () => ({ items: [], nextCursor: null }),
  "observations.get": () => ({ id: "obs-1", observatoryId: "obs-a" }),
  "observations.files": () => ({
    items: [{ ...foundFrame("f1-preview"), frame: null, kind: "preview" as const, previewOfId: "f1", missing: false }],
    lost: [],
  }),
};

describe("the Frames page", () => {
  it("runs the search the URL holds and pages on with Load more by the cursor, each frame with its observatory and preview", async () => {
    const searched: unknown[] = [];
    api = await startApi({
      ...surroundings,
      "frames.search": (input) => {
        searched.push(input);
        return (input as { cursor?: string }).cursor === "c1" ? page([foundFrame("f2")]) : page([foundFrame("f1")], "c1");
      },
    });
    renderPage("/frames?ra=00%3A40%3A00&dec=%2B41&radius=30&unit=arcmin&filter=Ha&grade=accepted");
    await screen.findByRole("cell", { name: /f1\.fits/ });
    expect(searched).toEqual([{ ra: 10, dec: 41, radius: 0.5, filter: "Ha", grade: "accepted", limit: 50 }]);
    await screen.findByRole("cell", { name: "Tokyo dome" });
    expect((await screen.findByRole("img", { name: "Preview of f1.fits" })).getAttribute("src")).toBe("/files/f1-preview/download");
    // The form shows the search it ran.
    expect((screen.getByLabelText("Right ascension (RA)") as HTMLInputElement).value).toBe("00:40:00");

    await userEvent.setup({ delay: null }).click(screen.getByRole("button", { name: "Load more" }));
    await screen.findByRole("cell", { name: /f2\.fits/ });
    expect(searched.at(-1)).toEqual({ ra: 10, dec: 41, radius: 0.5, filter: "Ha", grade: "accepted", limit: 50, cursor: "c1" });
    expect(screen.getAllByRole("checkbox", { name: /^Select f\d\.fits$/ })).toHaveLength(2);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Load more" })).toBeNull());
  });

  it("says what to do when nothing matches, and clearing the search empties the URL", async () => {
    api = await startApi({ ...surroundings, "frames.search": () => page([]) });
    renderPage("/frames?filter=OIII");
    await screen.findByRole("heading", { name: "No frame matches" });
    await userEvent.setup({ delay: null }).click(screen.getByRole("button", { name: "Clear the search" }));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/frames"));
    await screen.findByRole("heading", { name: "No frames yet" });
  });

  it("submitting the form puts the search in the URL, to share or reload", async () => {
    api = await startApi({ ...surroundings, "frames.search": () => page([]) });
    renderPage("/frames");
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("radio", { name: "Coordinates" }));
    await user.type(screen.getByLabelText("Right ascension (RA)"), "5h 35m 17s");
    await user.type(screen.getByLabelText("Declination (Dec)"), "-5:23:28");
    await user.type(screen.getByLabelText("Filter"), "Ha");
    await user.click(screen.getByRole("button", { name: "Search" }));
    await waitFor(() =>
      expect(Object.fromEntries(new URLSearchParams(screen.getByTestId("where").textContent!.split("?")[1]))).toEqual({
        ra: "5h 35m 17s",
        dec: "-5:23:28",
        radius: "30",
        unit: "arcmin",
        filter: "Ha",
      }),
    );
  });
});
