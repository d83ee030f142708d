// @vitest-environment happy-dom
import { screen, within } from "@testing-library/react";
import { DEFAULT_FRAME_GRADING } from "@meridian/rules/frames";
import { describe, expect, it } from "vitest";
import { foundFrame } from "../frames/frame-test-support";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { ObservationFiles } from "./ObservationFiles";

/** A plain file (no frame analysis) of the observation. */
const plainFile = (id: string, filename: string, missing = false) => ({ ...foundFrame(id), filename, frame: null, kind: "other" as const, missing });

describe("an observation's files", () => {
  it("offers every stored file as one ZIP, each kept file's download, and says which are missing or lost, and when", async () => {
    await startApi({
      "auth.me": () => signedIn(),
      "observations.files": () => ({
        items: [plainFile("fil_lost", "m31-0001.fits", true), plainFile("fil_kept", "m31-0002.fits")],
        lost: [
          {
            fileId: "fil_gone",
            filename: "m31-0003.fits",
            sizeBytes: 2_880,
            contentType: "application/fits",
            foundMissingAt: "2026-11-20T21:00:00.000Z",
            removedAt: "2026-11-21T09:00:00.000Z",
          },
        ],
      }),
    });
    renderInApp(<ObservationFiles observationId="obs-1" timeZone="UTC" grading={DEFAULT_FRAME_GRADING} />);
    const archive = await screen.findByRole("link", { name: "Download all (ZIP)" });
    expect(archive.getAttribute("href")).toBe("/observations/obs-1/files/archive");
    const items = within(screen.getByRole("list", { name: "Files" })).getAllByRole("listitem");
    const item = (filename: string) => items.find((one) => one.textContent?.includes(filename))!;

    expect(within(item("m31-0001.fits")).getByText("Missing", { exact: true })).toBeTruthy();
    expect(within(item("m31-0001.fits")).getByText(/gone from storage/)).toBeTruthy();
    expect(within(item("m31-0001.fits")).queryByRole("link", { name: /Download/ })).toBeNull();
    expect(screen.getByRole("link", { name: "Download m31-0002.fits" }).getAttribute("href")).toBe("/files/fil_kept/download");

    const lost = item("m31-0003.fits");
    expect(within(lost).getByText("Lost", { exact: true })).toBeTruthy();
    const said = /^Lost: its bytes were gone from storage when an integrity scan looked on .+, and its record was removed on /;
    expect(within(lost).getByText((_, element) => element?.tagName === "P" && said.test(element.textContent ?? ""))).toBeTruthy();
    expect(lost.querySelectorAll("time")).toHaveLength(2);
  });
});
