import { randomBytes } from "node:crypto";
import { CreateBucketCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { densestIndexFile, renderSkyFrame } from "../support/sky-frame";
import { signupUser, type TestServer } from "../support/test-server";
import { ONE_PIXEL_PNG } from "./support/browser";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { fillFirstTarget, nextStep } from "./support/wizard";

// An observation's files in the browser: a frame's gallery and its analysis, and the delivery of a file to an
// organization's storage. Real tools on real sky (Debian's source-extractor and solve-field against the Tycho-2 index
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
      // Where the mount pointed: the server's solve searches near it (1 s of CPU) instead of blind (15 s, a minute under load).
      ["OBJCTRA", "03 47 12"],
      ["OBJCTDEC", "+24 03 00"],
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

// A bucket of its own in the run's S3-protocol server, standing for the organization's archive.
const archive = () =>
  new S3Client({
    endpoint: inject("s3Endpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: inject("s3Credentials"),
  });

describe("web app: delivery to an organization's storage", { timeout: 180_000 }, () => {
  it("configures and tests a destination, submits an observation to it, and watches its file become delivered", async () => {
    const owner = await signupUser(server, { name: "Dora Delivery" });
    const tag = randomBytes(3).toString("hex");
    const bucket = `archive-${tag}`;
    await archive().send(new CreateBucketCommand({ Bucket: bucket }));
    const organization = await api<{ id: string }>("/organizations", owner.token, {
      method: "POST",
      json: {
        name: `Dark Sky Club ${tag}`,
        shortName: `club-${tag}`,
        type: "other",
        contactEmail: `club-${tag}@example.com`,
      },
    });
    await api("/projects", owner.token, { method: "POST", json: { name: `Comets ${tag}`, organizationId: organization.id } });
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${tag}` } });
    const key = await api<{ key: string }>(`/observatories/${observatory.id}/api-keys`, owner.token, { method: "POST", json: { name: "plugin" } });
    await suite.simulator({ key: key.key, speed: 1000, imageBytes: 40_000 });

    // The organization's External storage tab: a bucket, then its test.
    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, `organizations/${organization.id}`);
    await page.getByRole("tab", { name: "External storage" }).click();
    await page.getByRole("button", { name: "Add destination" }).click();
    const dialog = page.getByRole("dialog", { name: "Add storage destination" });
    await dialog.getByLabel("Label").fill("Club archive");
    await dialog.getByLabel("Bucket").fill(bucket);
    await dialog.getByLabel("Region").fill("us-east-1");
    await dialog.getByLabel("Endpoint").fill(inject("s3Endpoint"));
    await dialog.getByLabel("Key prefix").fill("meridian/");
    await dialog.getByLabel("Path-style addresses").check();
    await dialog.getByLabel("Access key ID").fill(inject("s3Credentials").accessKeyId);
    await dialog.getByLabel("Secret access key").fill(inject("s3Credentials").secretAccessKey);
    await dialog.getByRole("button", { name: "Add destination" }).press("Enter");
    await dialog.waitFor({ state: "detached", ...WAIT });
    const card = page.getByRole("listitem", { name: "Club archive" });
    await card.getByRole("button", { name: "Test Club archive" }).press("Enter");
    await card.getByRole("status", { name: "Test of Club archive" }).getByText("Works: a probe file was written and removed.").waitFor(WAIT);

    // The wizard offers the project's organization's destinations.
    await page.goto(appUrl(server, "observations/new"));
    await page.getByLabel("Name").fill(`Hartley ${tag}`);
    await page.getByLabel("Project").selectOption({ label: `Comets ${tag}` });
    await page.getByLabel("Observatory").selectOption({ index: 1 });
    await page.getByLabel("Deliver files to").selectOption({ label: "Club archive (Amazon S3 (or compatible))" });
    await nextStep(page, 2);
    await fillFirstTarget(page, { name: "103P", ra: "120", dec: "20", seconds: "1" });
    await nextStep(page, 3);
    await nextStep(page, 4);
    await nextStep(page, 5);
    await page.getByText("Club archive (Amazon S3 (or compatible))").waitFor(WAIT);
    await page.getByRole("button", { name: "Submit observation" }).click();
    await page.getByRole("heading", { name: `Hartley ${tag}` }).waitFor(WAIT);
    const observationId = new URL(page.url()).pathname.split("/").pop()!;

    // The simulator runs it; the file's delivery turns to Delivered on the page without a reload.
    const deliveries = page.getByRole("list", { name: "Deliveries of 103P.fits" });
    await deliveries.getByText("Delivered").waitFor({ timeout: 90_000 });
    const remoteKey = `meridian/Comets ${tag}/Hartley ${tag} (${observationId})/103P.fits`;
    await deliveries.getByText(`s3://${bucket}/${remoteKey}`).waitFor(WAIT);
    const copy = await archive().send(new HeadObjectCommand({ Bucket: bucket, Key: remoteKey }));
    expect(copy.ContentLength).toBe(40_000);
  });
});
