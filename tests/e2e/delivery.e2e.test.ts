import { randomBytes } from "node:crypto";
import { CreateBucketCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { fillFirstTarget, nextStep } from "./support/wizard";

// The worker runs in the server process, so dispatch and delivery really happen.
const suite = browserSuite({ MERIDIAN_ROLE: "all" });
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});
const { api } = suite;

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
