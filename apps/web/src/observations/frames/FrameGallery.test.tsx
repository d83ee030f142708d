// @vitest-environment happy-dom
import { queuedFrameAnalysis, DEFAULT_FRAME_GRADING, type FrameAnalysis } from "@meridian/rules/frames";
import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderInApp, textOf } from "../../test-support/render";
import type { FrameFile, PreviewFile } from "./FrameCard";
import { FrameGallery } from "./FrameGallery";

const M45 = { name: "M45", ra: 56.75, dec: 24.1167 };

function analysed(fields: Partial<FrameAnalysis>): FrameAnalysis {
  return {
    ...queuedFrameAnalysis(),
    status: "analysed",
    header: { ...queuedFrameAnalysis().header, object: "m45", dateObs: "2026-11-28T21:04:05.123", exposureSeconds: 60, filter: "L", width: 1024, height: 1024 },
    targetName: M45.name,
    stars: 152,
    fwhmArcsec: 2.44,
    hfrArcsec: 1.21,
    eccentricity: 0.314,
    backgroundAdu: 1020,
    solution: { ra: 56.8, dec: 24.05, pixelScaleArcsec: 7, rotationDeg: 37.5, widthDeg: 1.99, heightDeg: 1.99 },
    solveFailure: null,
    pointingOffsetArcsec: 42.4,
    grade: "accepted",
    rejectedFor: [],
    analysedAt: "2026-11-28T21:05:00.000Z",
    ...fields,
  };
}

const frameFile = (filename: string, frame: FrameAnalysis): FrameFile => ({ id: `file-${filename}`, filename, createdAt: "2026-11-28T21:06:00.000Z", frame });

function gallery(frames: FrameFile[], options: { previews?: Record<string, PreviewFile>; grading?: typeof DEFAULT_FRAME_GRADING; timeZone?: string } = {}) {
  renderInApp(
    <FrameGallery
      frames={frames}
      previewOf={new Map(Object.entries(options.previews ?? {}))}
      timeZone={options.timeZone ?? "Asia/Tokyo"}
      grading={"grading" in options ? options.grading : DEFAULT_FRAME_GRADING}
    />,
  );
  return (filename: string) => screen.getByLabelText(filename);
}

const reasons = (card: HTMLElement, filename: string) => [...within(card).getByLabelText(`Why ${filename} was rejected`).querySelectorAll("li")].map(textOf);

describe("the frame gallery", () => {
  it("shows an accepted frame's preview, grade, measures, solution and the time it was taken in the observatory's zone", () => {
    const card = gallery([frameFile("m45-001.fits", analysed({}))], { previews: { "file-m45-001.fits": { id: "preview-1" } } })("m45-001.fits");
    const image = card.querySelector("img")!;
    expect(image.getAttribute("alt")).toBe("Preview of m45-001.fits");
    expect(image.getAttribute("src")).toBe("/files/preview-1/download");
    expect(textOf(card)).toContain("Accepted");
    const measures = Object.fromEntries(
      [...card.querySelectorAll("dl > div")].map((pair) => [textOf(pair.querySelector("dt")), textOf(pair.querySelector("dd"))]),
    );
    expect(measures).toEqual({ Stars: "152", FWHM: "2.4″", HFR: "1.2″", Eccentricity: "0.31", "Pointing offset": "42″" });
    expect(textOf(card)).toContain("Solved: centre RA 3h 47m 12.0s, Dec +24° 03′ 00″; 7.00″ per pixel, rotated 37.5°, field 1.99° × 1.99°");
    // DATE-OBS carries no zone: FITS means UTC. Tokyo is 9 hours ahead, and says so.
    const time = card.querySelector("time")!;
    expect(time.getAttribute("datetime")).toBe("2026-11-28T21:04:05.123Z");
    expect(textOf(time)).toMatch(/06:04 UTC\+9$/);
    expect(textOf(card)).toContain("M45 · L · 60 s · Taken");
    expect(card.querySelector(`[aria-label="Why m45-001.fits was rejected"]`)).toBeNull();
  });

  it("says in words why a frame was rejected, for each check, with its measure and the project's limit", () => {
    const grading = { ...DEFAULT_FRAME_GRADING, maxOffsetArcmin: 10, minStars: 10, maxFwhmArcsec: 4, maxEccentricity: 0.6 };
    const card = gallery(
      [
        frameFile(
          "bad.fits",
          analysed({
            grade: "rejected",
            rejectedFor: ["OFF_TARGET", "TOO_FEW_STARS", "FWHM_TOO_HIGH", "ELONGATED"],
            pointingOffsetArcsec: 852,
            stars: 4,
            fwhmArcsec: 5.26,
            eccentricity: 0.724,
          }),
        ),
      ],
      { grading },
    )("bad.fits");
    expect(textOf(card)).toContain("Rejected");
    expect(reasons(card, "bad.fits")).toEqual([
      "Off target: pointed 14.2′ from M45, over the project's limit of 10′",
      "Too few stars: 4 found, the project asks for at least 10",
      "Stars too blurred: FWHM 5.3″, over the project's limit of 4″",
      "Stars elongated (trailing or tracking): eccentricity 0.72, over the project's limit of 0.60",
    ]);
  });

  it("says why a frame could not be solved, and that a server without a star catalog solves nothing", () => {
    const unsolved: Partial<FrameAnalysis> = { solution: null, pointingOffsetArcsec: null, grade: "rejected", rejectedFor: ["NOT_SOLVED"] };
    const card = gallery([
      frameFile("lost.fits", analysed({ ...unsolved, solveFailure: "NOT_SOLVED" })),
      frameFile("sparse.fits", analysed({ ...unsolved, solveFailure: "TOO_FEW_STARS", stars: 3, rejectedFor: ["NOT_SOLVED", "TOO_FEW_STARS"] })),
      frameFile("uncatalogued.fits", analysed({ solution: null, pointingOffsetArcsec: null, solveFailure: "CATALOG_MISSING" })),
    ]);
    expect(reasons(card("lost.fits"), "lost.fits")).toEqual(["Not plate-solved: its stars matched no part of the sky in the catalog"]);
    expect(reasons(card("sparse.fits"), "sparse.fits")).toEqual([
      "Not plate-solved: too few stars to match against the catalog",
      "Too few stars: 3 found, the project asks for at least 10",
    ]);
    // Without a catalog the frame is graded without its position: accepted, and the page says why it has none.
    const uncatalogued = card("uncatalogued.fits");
    expect(textOf(uncatalogued)).toContain("Accepted");
    expect(textOf(uncatalogued)).toContain("Not plate-solved: the server has no star catalog");
    expect(textOf(uncatalogued)).toContain("Pointing offset—");
  });

  it("leaves out a limit the reader cannot see (no access to the project)", () => {
    const card = gallery([frameFile("far.fits", analysed({ grade: "rejected", rejectedFor: ["OFF_TARGET"], pointingOffsetArcsec: 1500 }))], {
      grading: undefined,
    })("far.fits");
    expect(reasons(card, "far.fits")).toEqual(["Off target: pointed 25′ from M45"]);
  });

  it("shows a queued frame as being analysed and a failed one with its failure, each with a placeholder for its preview", () => {
    const failed: FrameAnalysis = { ...queuedFrameAnalysis(), status: "failed", failure: "the header claims 2,097,152 bytes of data; the file holds 1,000" };
    const card = gallery([frameFile("new.fits", queuedFrameAnalysis()), frameFile("broken.fits", failed)], {
      previews: {},
    });
    const queued = card("new.fits");
    expect(textOf(queued)).toContain("Analysing…");
    expect(queued.querySelector("img")).toBeNull();
    expect(textOf(queued)).toContain("Preview after its analysis");
    expect(queued.querySelector("dl")).toBeNull();
    // Not taken yet as far as the page knows: its upload time, named in the zone too.
    expect(textOf(queued)).toMatch(/Uploaded .*06:06 UTC\+9/);
    const broken = card("broken.fits");
    expect(textOf(broken)).toContain("Analysis failed");
    expect(textOf(broken)).toContain("Could not be analysed: the header claims 2,097,152 bytes of data; the file holds 1,000");
    expect(textOf(broken)).toContain("No preview yet");
  });

  it("counts the frames by grade above the gallery", () => {
    gallery([
      frameFile("a.fits", analysed({})),
      frameFile("b.fits", analysed({ grade: "rejected", rejectedFor: ["TOO_FEW_STARS"], stars: 2 })),
      frameFile("c.fits", queuedFrameAnalysis()),
    ]);
    expect(textOf(document.body)).toContain("3 frames: 1 accepted, 1 rejected, 1 being analysed");
  });
});
