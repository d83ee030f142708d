import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const suite = browserSuite();
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});
const { api } = suite;

describe("web app: time allocation", { timeout: 120_000 }, () => {
  it("grants, changes and removes a project's hours on the observatory's Allocations tab, and the project page shows its usage", async () => {
    const owner = await signupUser(server, { name: "Alma Allocator" });
    const tag = randomBytes(3).toString("hex");
    const observatory = await api<{ id: string }>("/observatories", owner.token, { method: "POST", json: { name: `Dome ${tag}` } });
    const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name: `Variables ${tag}` } });
    await api("/observations", owner.token, {
      method: "POST",
      json: {
        name: `Mira ${tag}`,
        projectId: project.id,
        observatoryId: observatory.id,
        targets: [{ name: "Mira", ra: 34.84, dec: -2.98, exposures: [{ filter: "V", exposureSeconds: 1800, count: 1, binning: 1 }] }],
      },
    });

    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, `observatories/${observatory.id}`);
    await page.getByRole("tab", { name: "Allocations" }).press("Enter");
    await page.getByText("No allocations").waitFor(WAIT);
    await page.getByRole("button", { name: "Grant time" }).press("Enter");
    const dialog = page.getByRole("dialog", { name: "Grant observing time" });
    await dialog.getByLabel("Project").selectOption({ label: `Variables ${tag}` });
    await dialog.getByLabel("Hours").fill("0");
    await dialog.getByRole("button", { name: "Grant time" }).press("Enter");
    await dialog.getByText("Give a number of hours above 0.").waitFor(WAIT);
    await dialog.getByLabel("Hours").fill("10");
    await dialog.getByRole("button", { name: "Grant time" }).press("Enter");
    await dialog.waitFor({ state: "detached", ...WAIT });
    const meter = page.getByRole("meter", { name: `Hours used by Variables ${tag}` });
    expect(await meter.getAttribute("aria-valuetext")).toBe("0 h of 10 h");

    await page.getByRole("button", { name: `Change the allocation of Variables ${tag}` }).press("Enter");
    const change = page.getByRole("dialog", { name: `Change the allocation of Variables ${tag}` });
    await change.getByLabel("Hours").fill("12.5");
    await change.getByRole("button", { name: "Save allocation" }).press("Enter");
    await expect.poll(() => meter.getAttribute("aria-valuetext")).toBe("0 h of 12.5 h");

    // The project's Usage card: allocated, used and the waiting observation's half hour.
    await page.goto(appUrl(server, `projects/${project.id}`));
    const usage = page.getByRole("table", { name: "Usage per observatory" });
    const row = usage.getByRole("row").filter({ hasText: `Dome ${tag}` });
    expect(await row.getByRole("meter").getAttribute("aria-valuetext")).toBe("0 h of 12.5 h");
    await row.getByText("0.54 h").waitFor(WAIT);

    // Removed: unlimited again, on both pages.
    await page.goto(appUrl(server, `observatories/${observatory.id}?tab=allocations`));
    await page.getByRole("button", { name: `Remove the allocation of Variables ${tag}` }).press("Enter");
    await page.getByRole("dialog", { name: "Remove allocation?" }).getByRole("button", { name: "Remove allocation" }).press("Enter");
    await page.getByText("No allocations").waitFor(WAIT);
    await page.goto(appUrl(server, `projects/${project.id}`));
    await usage
      .getByRole("row")
      .filter({ hasText: `Dome ${tag}` })
      .getByText("0 h used · unlimited")
      .waitFor(WAIT);
  });
});
