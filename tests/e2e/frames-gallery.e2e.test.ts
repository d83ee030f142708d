import { beforeAll, describe, expect, it } from "vitest";
import { densestIndexFile, renderSkyFrame } from "../support/sky-frame";
import { signupUser, type TestServer } from "../support/test-server";
import { ONE_PIXEL_PNG } from "./support/browser";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// Real tools on real sky (Debian's source-extractor and solve-field against the Tycho-2 index
// files, as tests/integration/frame-analysis.test.ts): the worker runs in the server process.
const CATALOG = "/usr/share/astrometry";
const suite = browserSuite({ MERIDIAN_ROLE: "all", STAR_CATALOG_DIR: CATALOG, FRAME_ANALYSIS_TIMEOUT_SECONDS: "300" });
const { api } = suite;
let server: TestServer;

/** The Pleiades, 4′ from where the frame points: accepted by the default grading (10′). */
const M45 = { name: "M45", ra: 56.75, dec: 24.1167 };
let skyFrame: Buffer;
beforeAll(async () => {
  server = suite.server();
  const indexFile = await densestIndexFile(CATALOG);
  ({ bytes: skyFrame } = await renderSkyFrame({
    ra: 56.8,
    dec: 24.05,
    scaleArcsec: 7,
    rotationDeg: 37.5,
    fwhmPixels: 3.2,
    indexFile,
    cards: [
      ["OBJECT", "M45"],
      ["DATE-OBS", "2026-11-28T21:04:05"],
      ["EXPTIME", 60],
      ["FILTER", "L"],
    ],
  }));
}, 120_000);

/** A file of the observation, uploaded as a plugin does with its observatory's key. */
async function upload(observationId: string, key: string, filename: string, bytes: Buffer, options: { previewOf?: string; contentType?: string } = {}) {
  const query = new URLSearchParams({ filename, ...(options.previewOf ? { previewOf: options.previewOf } : {}) });
  const response = await server.request(`/observations/${observationId}/files?${query}`, {
    method: "POST",
    token: key,
    headers: { "content-type": options.contentType ?? "application/octet-stream" },
    body: new Uint8Array(bytes),
  });
  if (response.status !== 201) throw new Error(`upload of ${filename}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

describe("web app: an observation's frames", { timeout: 400_000 }, () => {
  it("shows a frame of real sky in the gallery with its preview, and its grade and measures once the server has analysed it", async () => {
    const owner = await signupUser(server, { name: "Gala Gallery" });
    const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name: "Clusters" } });
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: "Gallery Dome" } });
    const { key } = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { method: "POST", json: { name: "plugin" } });
    const observation = await api<{ id: string }>("/observations", owner.token, {
      method: "POST",
      json: {
        name: "Pleiades",
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [{ ...M45, exposures: [{ filter: "L", exposureSeconds: 60, count: 2, binning: 1 }] }],
      },
    });
    // The plugin sends the frame and its own preview, as plugins that make previews do.
    const frame = await upload(observation.id, key, "m45-001.fits", skyFrame);
    await upload(observation.id, key, "m45-001.png", ONE_PIXEL_PNG, { previewOf: frame.id, contentType: "image/png" });

    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, `observations/${observation.id}`);
    const card = page.getByRole("list", { name: "Frames" }).getByRole("listitem", { name: "m45-001.fits" });
    const preview = card.getByRole("img", { name: "Preview of m45-001.fits" });
    await preview.waitFor(WAIT);
    await preview.scrollIntoViewIfNeeded();
    // The image really arrived through the download route, with the session cookie.
    await expect.poll(() => preview.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(1);

    // The analysis ends in the worker; the page follows without a reload.
    await card.getByText("Accepted", { exact: true }).waitFor({ timeout: 320_000 });
    const measures = await card.locator("dl > div").evaluateAll((pairs) => pairs.map((pair) => pair.textContent));
    expect(measures).toEqual([
      expect.stringMatching(/^Stars\d+$/),
      expect.stringMatching(/^FWHM\d+(\.\d)?″$/),
      expect.stringMatching(/^HFR\d+(\.\d)?″$/),
      expect.stringMatching(/^Eccentricity0\.\d\d$/),
      expect.stringMatching(/^Pointing offset\d+(\.\d)?[′″]$/),
    ]);
    await card.getByText(/^Solved: centre RA 3h 4[67]m/).waitFor(WAIT);
    // DATE-OBS is UTC; the page says the time in the observatory's zone, named.
    expect(await card.locator("time").getAttribute("datetime")).toBe("2026-11-28T21:04:05.000Z");
    expect(await card.locator("time").textContent()).toMatch(/UTC([+-]\d+(:\d\d)?)?$/);
    await page.getByText("1 frame: 1 accepted, 0 rejected").waitFor(WAIT);
  });
});
