import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { FrameCharts } from "./FrameCharts";

type Props = Parameters<typeof FrameCharts>[0]["analytics"];
const observatory = (name: string, fields: Partial<Props["framesByObservatory"][number]>) => ({
  observatoryId: `obs_${name}`,
  observatoryName: name,
  analysed: 0,
  accepted: 0,
  failed: 0,
  acceptedShare: null,
  medianFwhmArcsec: null,
  ...fields,
});

/** The charts' figures by their accessible names, each of which reads every bar's name and value. */
const figureNames = (html: string) => [...html.matchAll(/<figure aria-label="([^"]*)"/g)].map((match) => match[1]);

describe("the frames charts of the Analytics page", () => {
  it("shows the totals, then per observatory the frames analysed, the accepted share and the median FWHM, each value in the figure's name", () => {
    const html = renderToStaticMarkup(
      <FrameCharts
        analytics={{
          framesAnalysed: 1234,
          framesFailed: 2,
          framesAcceptedShare: 0.8123,
          framesByObservatory: [
            observatory("Cerro Alto", { analysed: 1200, accepted: 980, acceptedShare: 980 / 1200, medianFwhmArcsec: 2.4567 }),
            // Only failed frames: nothing graded, nothing measured; it is left out of those two charts.
            observatory("Failing dome", { failed: 2 }),
            { ...observatory("unnamed", { analysed: 34, accepted: 34, acceptedShare: 1, medianFwhmArcsec: 1.8 }), observatoryName: null },
          ],
        }}
      />,
    );
    expect(html).toContain("Frames over the last 30 days");
    expect(html).toMatch(/Frames analysed<\/dt><dd[^>]*>1,234</);
    expect(html).toMatch(/Accepted<\/dt><dd[^>]*>81.2 %</);
    expect(html).toMatch(/Could not be analysed<\/dt><dd[^>]*>2</);
    for (const heading of ["Frames analysed per observatory", "Accepted share per observatory", "Median FWHM per observatory"])
      expect(html).toContain(`<h3 class="text-sm font-semibold text-slate-900">${heading}</h3>`);
    expect(figureNames(html)).toEqual([
      "Frames analysed per observatory: Cerro Alto 1200, Failing dome 0, obs_unnamed 34",
      "Accepted share per observatory: Cerro Alto 81.7 %, obs_unnamed 100 %",
      "Median FWHM per observatory: Cerro Alto 2.46″, obs_unnamed 1.8″",
    ]);
  });

  it("says so when no frame was analysed in the last 30 days, without empty charts", () => {
    const html = renderToStaticMarkup(<FrameCharts analytics={{ framesAnalysed: 0, framesFailed: 0, framesAcceptedShare: null, framesByObservatory: [] }} />);
    expect(html).toContain("No frame was analysed in the last 30 days.");
    expect(html).toMatch(/Accepted<\/dt><dd[^>]*>—</);
    expect(figureNames(html)).toEqual([]);
  });

  it("says why a chart is missing when the observatories' frames all failed or had no stars", () => {
    const html = renderToStaticMarkup(
      <FrameCharts
        analytics={{ framesAnalysed: 0, framesFailed: 3, framesAcceptedShare: null, framesByObservatory: [observatory("Cloudy", { failed: 3 })] }}
      />,
    );
    expect(figureNames(html)).toEqual(["Frames analysed per observatory: Cloudy 0"]);
    expect(html).toContain("No frame was analysed to the end: none could be graded.");
    expect(html).toContain("No analysed frame had stars to measure.");
  });
});
