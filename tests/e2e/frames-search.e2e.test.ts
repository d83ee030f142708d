import { readFile } from "node:fs/promises";
import { filesCollection, type FileDoc } from "@meridian/db";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, type Account } from "../support/auth-suite";
import { jsonApi } from "../support/json-api";
import { observationWithKey } from "../support/observatory-keys";
import { readZip } from "../support/zip-reading";
import { ONE_PIXEL_PNG } from "./support/browser";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// The Frames page in Chromium: a cone search typed in sexagesimal coordinates, its results with their previews and
// distances, the search kept in the URL, and a selection downloaded as a ZIP. The server runs no worker: frames are
// uploaded as a plugin uploads them and their analyses written as the job leaves them (as the API's own tests do), so
// no solver runs and each frame's solved centre is known.
const suite = browserSuite({ MERIDIAN_ROLE: "server" });
const { must } = jsonApi(() => suite.server());

const M42 = { ra: 83.822083, dec: -5.391111 };
let owner: Account;
const ids: Record<string, string> = {};
const bytesOf: Record<string, Buffer> = {};

const card = (text: string) => text.padEnd(80, " ");
/** A small valid FITS image (2-D, 8 bits), its data told apart by `tag`. */
function fitsBytes(tag: string): Buffer {
  const value = (key: string, text: string) => card(`${key.padEnd(8)}= ${text.padStart(20)}`);
  const header = [value("SIMPLE", "T"), value("BITPIX", "8"), value("NAXIS", "2"), value("NAXIS1", "4"), value("NAXIS2", "4"), card("END")];
  const data = Buffer.alloc(2880);
  data.write(tag, "ascii");
  return Buffer.concat([Buffer.from(header.join("").padEnd(2880, " "), "ascii"), data]);
}

/** A frame's analysis as the job leaves it, solved at `centre`. */
const analysed = (analysisId: string, centre: { ra: number; dec: number }, rejected: boolean): NonNullable<FileDoc["frame"]> => ({
  analysisId,
  status: "analysed",
  failure: null,
  header: {
    object: "M 42",
    dateObs: "2026-11-20T21:15:00",
    exposureSeconds: 120,
    filter: "Ha",
    binning: 1,
    width: 4,
    height: 4,
    ra: null,
    dec: null,
    imageType: "LIGHT",
  },
  targetName: "M 42",
  stars: rejected ? 3 : 240,
  fwhmArcsec: 2.4,
  hfrArcsec: 1.4,
  eccentricity: 0.3,
  backgroundAdu: 1100,
  solution: { ...centre, pixelScaleArcsec: 1.2, rotationDeg: 0, widthDeg: 0.5, heightDeg: 0.4 },
  solveFailure: null,
  pointingOffsetArcsec: 60,
  grade: rejected ? "rejected" : "accepted",
  rejectedFor: rejected ? ["TOO_FEW_STARS"] : [],
  analysedAt: new Date().toISOString(),
});

beforeAll(async () => {
  const server = suite.server();
  owner = await createAccount(server, { name: "Frieda Frames" });
  const { key, observation, observatoryId } = await observationWithKey(must, {
    owner,
    project: "Orion frames",
    observation: { name: "Orion", targets: [{ name: "M 42", ...M42, exposures: [{ filter: "Ha", exposureSeconds: 120, count: 3, binning: 1 }] }] },
  });
  await must(`/observatories/${observatoryId}`, { method: "PUT", token: owner.token, json: { timeZone: "Asia/Tokyo" } });
  const upload = async (filename: string, body: Buffer, contentType: string, previewOf?: string) => {
    const query = new URLSearchParams({ filename, ...(previewOf ? { previewOf } : {}) });
    const response = await server.request(`/observations/${observation.id}/files?${query}`, {
      method: "POST",
      token: key,
      headers: { "content-type": contentType },
      body: new Uint8Array(body),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const frames = [
    ["orion-centre.fits", { ra: 83.83, dec: -5.4 }, false],
    ["orion-edge.fits", { ra: 84.5, dec: -5.39 }, true],
    ["andromeda.fits", { ra: 10.68, dec: 41.27 }, false],
  ] as const;
  const { db } = server.server.runtime.deps;
  for (const [filename, centre, rejected] of frames) {
    bytesOf[filename] = fitsBytes(filename);
    ids[filename] = await upload(filename, bytesOf[filename], "application/fits");
    await filesCollection.update(db, ids[filename], (doc) => ({ ...doc, frame: analysed(doc.frame!.analysisId, centre, rejected) }));
  }
  await upload("orion-centre.png", ONE_PIXEL_PNG, "image/png", ids["orion-centre.fits"]);
});

describe("web app: the Frames page", { timeout: 120_000 }, () => {
  it("finds frames around typed coordinates, nearest first with distance and preview, keeps the search in the URL, downloads a selection", async () => {
    const page = await suite.pages.signInAt("owner", owner, "");
    // The browser west of UTC: DATE-OBS, UTC without a zone in FITS, must not be read as this browser's local time.
    await (await page.context().newCDPSession(page)).send("Emulation.setTimezoneOverride", { timezoneId: "America/Santiago" });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Frames", exact: true }).click();
    await page.getByRole("heading", { name: "Frames", level: 1 }).waitFor(WAIT);

    await page.getByRole("radio", { name: "Coordinates" }).check();
    await page.getByLabel("Right ascension (RA)").fill("05:35:17.3");
    await page.getByLabel("Declination (Dec)").fill("-05 23 28");
    await page.getByLabel("Radius", { exact: true }).fill("30");
    await page.getByLabel("Radius", { exact: true }).press("Enter");
    await page.waitForURL(/[?&]ra=05%3A35%3A17\.3/);

    const rows = page.getByRole("table", { name: "Frames" }).locator("tbody tr");
    const shown = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-frame-id")));
    await expect.poll(shown).toEqual([ids["orion-centre.fits"]]);
    const centre = rows.first();
    await expect.poll(() => centre.locator("td[data-distance]").innerText()).toBe("42.8″");
    // DATE-OBS is UTC (21:15): shown in the observatory's zone, named.
    await expect.poll(() => centre.innerText()).toMatch(/06:15 UTC\+9/);
    await expect
      .poll(() => centre.getByRole("img", { name: "Preview of orion-centre.fits" }).evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBe(1);

    // Wider, in degrees: the rejected frame at the edge comes second, nearest first; a reload runs the same search.
    await page.getByLabel("Radius unit").selectOption("deg");
    await page.getByLabel("Radius", { exact: true }).fill("1");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/unit=deg/);
    await expect.poll(shown).toEqual([ids["orion-centre.fits"], ids["orion-edge.fits"]]);
    await page.reload();
    await expect.poll(shown).toEqual([ids["orion-centre.fits"], ids["orion-edge.fits"]]);
    await expect.poll(() => rows.nth(1).innerText()).toMatch(/Rejected\s+Too few stars/);

    // Chosen from the keyboard, downloaded as one ZIP of the chosen frames' bytes.
    await page.getByRole("checkbox", { name: "Select orion-edge.fits" }).focus();
    await page.keyboard.press("Space");
    await page.getByRole("status").filter({ hasText: "1 frame selected" }).waitFor(WAIT);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download 1 frame (ZIP)" }).click()]);
    const entries = await readZip(await readFile((await download.path())!));
    expect(entries.map((entry) => [entry.name, entry.bytes!.toString("hex")])).toEqual([["orion-edge.fits", bytesOf["orion-edge.fits"]!.toString("hex")]]);
  });

  it("shows the frames found as cards on a phone, nothing wider than the screen", async () => {
    const search = "frames?ra=05%3A35%3A17.3&dec=-05+23+28&radius=1&unit=deg";
    const page = await suite.pages.signInAt("phone", owner, search, { width: 390, height: 844 });
    const rows = page.getByRole("table", { name: "Frames" }).locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    // Each row a card: its cells stacked, every value named beside it since the headings are gone.
    await expect.poll(() => rows.first().evaluate((row) => getComputedStyle(row).display)).toBe("flex");
    await expect.poll(() => rows.first().locator("td[data-distance]").innerText()).toBe("Distance 42.8″");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The table's box scrolls sideways when a row is too wide: as cards, it must not need to.
    const table = page.getByRole("table", { name: "Frames" });
    expect(await table.evaluate((element) => element.parentElement!.scrollWidth - element.parentElement!.clientWidth)).toBe(0);
  });
});
