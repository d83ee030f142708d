// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FrameDownloadBar } from "./FrameDownloadBar";
import { FrameResults } from "./FrameResults";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { foundFrame } from "./frame-test-support";
import { downloadFrameArchive } from "./frame-archive";
import type { FoundFrame } from "./types";
import { useFrameSelection, type FrameSelection } from "./useFrameSelection";

let api: Awaited<ReturnType<typeof startApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

const TOKYO = { name: "Tokyo dome", timeZone: "Asia/Tokyo" };

/** The page's parts around one selection: the download bar above the results. */
function Found({
  items,
  origin = null,
  download,
}: {
  items: FoundFrame[];
  origin?: { ra: number; dec: number } | null;
  download?(fileIds: readonly string[]): Promise<void>;
}) {
  const selection = useFrameSelection(items.map((file) => file.id));
  return (
    <>
      <FrameDownloadBar shown={items.length} selection={selection} download={download} />
      <FrameResults items={items} origin={origin} observatoryOf={() => TOKYO} selection={selection} />
    </>
  );
}

const rowOf = (id: string) => document.querySelector<HTMLElement>(`tr[data-frame-id="${id}"]`)!;
const cellTexts = (id: string) =>
  within(rowOf(id))
    .getAllByRole("cell")
    .map((cell) => cell.textContent?.replace(/\s+/g, " ").trim());

describe("the frames found", () => {
  it("show each frame's distance from the search point, its grade in words and when it was taken in the observatory's zone", () => {
    renderInApp(
      <Found
        origin={{ ra: 10, dec: 41 }}
        items={[
          foundFrame("close", { frame: { solution: { ra: 10, dec: 41.005, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 0.4, heightDeg: 0.4 } } }),
          foundFrame("near", {
            previewId: "near-preview",
            frame: { solution: { ra: 10, dec: 41.1, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 0.4, heightDeg: 0.4 } },
          }),
          foundFrame("far", {
            frame: {
              solution: { ra: 10, dec: 42.5, pixelScaleArcsec: 1.5, rotationDeg: 0, widthDeg: 0.4, heightDeg: 0.4 },
              grade: "rejected",
              rejectedFor: ["OFF_TARGET", "TOO_FEW_STARS"],
              stars: 4,
              pointingOffsetArcsec: 5_400,
            },
          }),
        ]}
      />,
    );
    const headings = screen.getAllByRole("columnheader").map((heading) => heading.textContent);
    expect(headings).toEqual(["Frame", "Observatory", "Taken", "Filter", "Exposure", "Grade", "Stars", "FWHM", "Offset", "Distance"]);
    expect(cellTexts("close")).toEqual([
      "M 31close.fits",
      "Tokyo dome",
      expect.stringMatching(/06:15 UTC\+9$/),
      "Filter Ha",
      "120 s",
      "Accepted",
      "Stars 312",
      "FWHM 2.4″",
      "Offset 42.5″",
      "Distance 18.0″",
    ]);
    expect(cellTexts("near").at(-1)).toBe("Distance 6.0′");
    expect(cellTexts("far")).toEqual(expect.arrayContaining(["RejectedPointed off target, too few stars", "Offset 1.50°", "Distance 1.50°"]));
    expect(screen.getByRole("img", { name: "Preview of near.fits" }).getAttribute("src")).toBe("/files/near-preview/download");
    expect(within(rowOf("close")).queryByRole("img")).toBeNull();
    expect(within(rowOf("close")).getByRole("link", { name: "M 31" }).getAttribute("href")).toBe("/observations/obs-1");
  });

  it("without a search point: no distance, frames still being analysed or failed say so, an undated frame says when it came", () => {
    renderInApp(
      <Found
        items={[
          foundFrame("waiting", { frame: { status: "queued", grade: null, solution: null, stars: null, fwhmArcsec: null, pointingOffsetArcsec: null } }),
          foundFrame("broken", {
            frame: {
              status: "failed",
              failure: "The header claims more data than the file holds",
              grade: null,
              header: { ...foundFrame("x").frame.header, dateObs: null },
            },
          }),
        ]}
      />,
    );
    expect(screen.queryByRole("columnheader", { name: "Distance" })).toBeNull();
    expect(cellTexts("waiting")).toEqual(expect.arrayContaining(["Being analysed", "Stars —", "FWHM —", "Offset —"]));
    expect(cellTexts("broken")).toEqual(
      expect.arrayContaining(["Analysis failedThe header claims more data than the file holds", expect.stringMatching(/^Uploaded .*06:30 UTC\+9$/)]),
    );
  });
});

describe("choosing frames and downloading them", () => {
  const three = [foundFrame("f1"), foundFrame("f2"), foundFrame("f3")];

  it("selects from the keyboard, counts against the bound, and posts the chosen ids for one ZIP", async () => {
    api = await startApi({}, () => ({
      status: 200,
      headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="frames-2.zip"; filename*=UTF-8''frames%202.zip` },
      body: new Uint8Array([80, 75, 5, 6]),
    }));
    document.cookie = "session=the-session";
    const saved: Array<{ filename: string; bytes: number[] }> = [];
    const save = async (blob: Blob, filename: string) => saved.push({ filename, bytes: [...new Uint8Array(await blob.arrayBuffer())] });
    renderInApp(<Found items={three} download={(ids) => downloadFrameArchive(ids, (blob, filename) => void save(blob, filename))} />);
    const user = userEvent.setup({ delay: null });
    const status = screen.getByRole("status");
    expect(status.textContent).toBe("No frame selected (at most 200 in one download)");
    expect(screen.getByRole("button", { name: "Download selected (ZIP)" }).hasAttribute("disabled")).toBe(true);

    screen.getByRole("checkbox", { name: "Select all on page" }).focus();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("checkbox", { name: "Select f1.fits" }));
    await user.keyboard(" ");
    await user.tab(); // the frame's link
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("checkbox", { name: "Select f2.fits" }));
    await user.keyboard(" ");
    await user.click(screen.getByRole("checkbox", { name: "Select f3.fits" }));
    await user.click(screen.getByRole("checkbox", { name: "Select f3.fits" }));
    expect(status.textContent).toBe("2 frames selected (at most 200 in one download)");

    await user.click(screen.getByRole("button", { name: "Download 2 frames (ZIP)" }));
    await waitFor(() => expect(saved).toEqual([{ filename: "frames 2.zip", bytes: [80, 75, 5, 6] }]));
    const [request] = api.received;
    expect(request).toMatchObject({ method: "POST", path: "/frames/archive" });
    expect(request!.headers["content-type"]).toBe("application/json");
    // Same-origin: the session cookie goes with it, as it goes with tRPC's requests.
    expect(request!.headers.cookie).toBe("session=the-session");
    expect(JSON.parse(request!.body)).toEqual({ fileIds: ["f1", "f2"] });
  });

  it("shows the server's refusal of a download as the app shows errors", async () => {
    api = await startApi({}, () => ({
      status: 404,
      headers: { "content-type": "application/problem+json" },
      body: JSON.stringify({ type: "about:blank", title: "Not Found", status: 404, code: "NOT_FOUND", detail: "No frame you may read has the id f1" }),
    }));
    renderInApp(<Found items={three} />);
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("checkbox", { name: "Select f1.fits" }));
    await user.click(screen.getByRole("button", { name: "Download 1 frame (ZIP)" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Could not download the frames: No frame you may read has the id f1");
  });

  it("selects all on the page up to 200, the rest left out and closed until some are let go", () => {
    // The bar over 201 frames without their rows, which a DOM in Node renders slowly: the rows' boxes read `has` and `full`.
    const ids = Array.from({ length: 201 }, (_, index) => `m${index}`);
    const seen: FrameSelection[] = [];
    function Bar() {
      const selection = useFrameSelection(ids);
      seen.push(selection);
      return <FrameDownloadBar shown={ids.length} selection={selection} />;
    }
    renderInApp(<Bar />);
    const now = () => seen.at(-1)!;
    fireEvent.click(screen.getByRole("checkbox", { name: "Select all on page" }));
    expect(screen.getByRole("status").textContent).toBe("200 frames selected (at most 200 in one download): the first 200 shown are selected.");
    expect(now().ids).toEqual(ids.slice(0, 200));
    expect(now().full).toBe(true);
    act(() => now().toggle("m200", true));
    expect(now().has("m200")).toBe(false);
    act(() => now().toggle("m0", false));
    act(() => now().toggle("m200", true));
    expect(now().has("m200")).toBe(true);
    expect(screen.getByRole("status").textContent).toBe("200 frames selected (at most 200 in one download)");
    expect(screen.getByRole("button", { name: "Download 200 frames (ZIP)" })).toBeTruthy();
    fireEvent.click(screen.getByRole("checkbox", { name: "Select all on page" }));
    expect(screen.getByRole("status").textContent).toBe("No frame selected (at most 200 in one download)");
  });

  it("closes the boxes of unselected frames once the bound is reached", () => {
    const full = { ids: [], has: (id: string) => id === "f1", full: true, toggle: vi.fn(), setAll: vi.fn(), capped: false };
    renderInApp(<FrameResults items={[foundFrame("f1"), foundFrame("f2")]} origin={null} observatoryOf={() => TOKYO} selection={full} />);
    expect((screen.getByRole("checkbox", { name: "Select f1.fits" }) as HTMLInputElement).disabled).toBe(false);
    const closed = screen.getByRole("checkbox", { name: "Select f2.fits" }) as HTMLInputElement;
    expect(closed.disabled).toBe(true);
    expect(closed.title).toBe("A download holds at most 200 frames: let some go first.");
  });
});
