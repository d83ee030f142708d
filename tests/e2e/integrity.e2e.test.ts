import { randomUUID } from "node:crypto";
import { observationsCollection } from "@meridian/db";
import { beforeAll, describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { observationDocument, stuckFor } from "../support/observation-documents";
import type { TestServer } from "../support/test-server";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "integrity-e2e@example.com", password: "integrity e2e password" };
// The worker runs in the server process, so scans and bulk repairs really run.
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
let server: TestServer;
const stuck: string[] = [];
beforeAll(async () => {
  server = suite.server();
  const { token } = await loginSession(server, ADMIN);
  const user = (await (await server.request("/api/v1/auth/me", { token })).json()) as { id: string };
  const create = async (path: string, json: unknown) => ((await (await server.request(path, { method: "POST", token, json })).json()) as { id: string }).id;
  await server.request("/api/v1/admin/settings", { method: "PUT", token, json: { scanSchedule: { quick: null, full: null } } });
  const observatoryId = await create("/observatories", { name: "Integrity dome" });
  const projectId = await create("/projects", { name: "Integrity survey" });
  for (const name of ["Stuck one", "Stuck two", "Stuck three"])
    stuck.push(
      (
        await observationsCollection.insert(
          server.server.runtime.deps.db,
          observationDocument({ projectId, observatoryId, ownerId: user.id }, { name: `${name} ${randomUUID().slice(0, 4)}`, ...stuckFor("assigned", 72) }),
        )
      ).id,
    );
});

describe("web app: database integrity", { timeout: 120_000 }, () => {
  it("runs a scan from the form, shows the issues with counts, previews a fix as a diff, repairs one and the rest in bulk, and exports", async () => {
    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    await page
      .getByRole("link", { name: /Database integrity/ })
      .first()
      .click();
    await page.getByRole("heading", { name: "Database integrity", level: 1 }).waitFor(WAIT);

    // Full scan of the observations only, by keyboard.
    await page.getByLabel(/^Full:/).check();
    for (const box of await page.getByRole("group", { name: "Collections" }).getByRole("checkbox").all()) await box.uncheck();
    await page.getByLabel(/^observations \(/).check();
    await page.getByRole("button", { name: "Start full scan" }).press("Enter");
    const table = page.getByRole("table", { name: "Issues" });
    await table.waitFor(WAIT);
    await expect.poll(() => table.getByText("STUCK_ASSIGNED").count()).toBe(3);
    // Counts per value in the filters.
    await expect.poll(() => page.getByLabel("Severity").locator("option", { hasText: "warning (3)" }).count()).toBe(1);
    await page.getByLabel("Severity").selectOption("critical");
    await page.getByText("No issue matches these filters").waitFor(WAIT);
    await page.getByLabel("Severity").selectOption("");

    // One issue: its fix as a diff, then repaired.
    await table.getByRole("button", { name: `Details of STUCK_ASSIGNED on ${stuck[0]}` }).click();
    const drawer = page.getByRole("dialog", { name: "STUCK_ASSIGNED" });
    const diff = drawer.getByLabel("The change as a diff");
    await expect.poll(() => diff.textContent()).toContain("- status: assigned");
    expect(await diff.textContent()).toContain("+ status: pending");
    // By keyboard: the Repair button is disabled while it runs and gone once it succeeded, and focus
    // never drops to the page's body: it stays in the drawer, on its way back (Close).
    await drawer.getByRole("button", { name: "Repair this issue" }).focus();
    await page.keyboard.press("Enter");
    await drawer.getByText(/the check no longer finds it/).waitFor(WAIT);
    await drawer.getByRole("button", { name: "Repair this issue" }).waitFor({ state: "detached", ...WAIT });
    await expect
      .poll(() => page.evaluate(() => ({ label: document.activeElement?.getAttribute("aria-label"), inDrawer: !!document.activeElement?.closest("dialog") })))
      .toEqual({ label: "Close", inDrawer: true });
    await page.keyboard.press("Enter");
    await drawer.waitFor({ state: "hidden", ...WAIT });
    // Closed, focus goes back to the row's button that opened it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(`Details of STUCK_ASSIGNED on ${stuck[0]}`);

    // The rest in bulk, behind a confirmation naming how many change.
    await page.getByRole("button", { name: "Repair 2 auto-fixable issues" }).click();
    const confirm = page.getByRole("dialog", { name: "Repair 2 issues?" });
    await confirm.getByText("Up to 2 documents").waitFor(WAIT);
    await confirm.getByRole("button", { name: "Repair 2" }).click();
    await page.getByText("Repaired 2 issues.").waitFor(WAIT);
    for (const id of stuck) expect((await observationsCollection.get(server.server.runtime.deps.db, id))!.doc.status).toBe("pending");

    // Export follows the filters and downloads with the session cookie.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    const { readFile } = await import("node:fs/promises");
    const csv = (await readFile((await download.path())!)).toString();
    expect(csv.split("\n")[0]).toBe("id,severity,type,collection,documentId,code,message,autoFixable,status,fix");
    expect(csv.match(/STUCK_ASSIGNED/g)).toHaveLength(3);
    // The scan is in the history, finished.
    await page.getByRole("table", { name: "Scans" }).getByText("completed").waitFor(WAIT);
  });
});
