import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { filesCollection, observationsCollection } from "@meridian/db";
import { startIntegrityScan } from "@meridian/domain/integrity";
import { beforeAll, describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { fileDocument, observationDocument, stuckFor } from "../support/observation-documents";
import { signupUser, type TestServer } from "../support/test-server";
import { until } from "../support/until";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * What confused a new user (issue 22): where the settings are, the integrity page's state and
 * order, a lost file, dismissing banners, the cancel dialog's buttons, what a verification says,
 * whose observatory it is, and React Router's warning on every load.
 */
const ADMIN = { email: "first-use-admin@example.com", password: "first use admin password" };
// The worker runs in the server process, so scans and backups really run.
const suite = browserSuite({ MERIDIAN_ROLE: "all", ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const { pages } = suite;
let server: TestServer;
let adminToken = "";
const tag = () => randomBytes(3).toString("hex");

async function api<T = { id: string }>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  const response = await server.request(pathname, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), token, json: init.json });
  const text = await response.text();
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** A user with an observatory and a project of their own. */
async function observer(name: string) {
  const user = await signupUser(server, { name });
  const observatory = await api("/observatories", user.token, { json: { name: `Dome ${tag()}` } });
  const project = await api("/projects", user.token, { json: { name: `Survey ${tag()}` } });
  return { user, observatory, project, credentials: { email: user.user.email, password: user.password } };
}

const scanToEnd = (scanId: string) =>
  until("the scan to finish", async () => {
    const scan = await api<{ status: string }>(`/api/v1/admin/integrity/scans/${scanId}`, adminToken);
    return scan.status === "completed" || scan.status === "failed" ? scan : undefined;
  });

/** The severities of the issue rows, top to bottom. */
const severitiesShown = (page: Page) =>
  page
    .getByRole("table", { name: "Issues" })
    .locator("tbody tr td:first-child")
    .allInnerTexts()
    .then((cells) => cells.map((cell) => cell.trim()));

beforeAll(async () => {
  server = suite.server();
  adminToken = (await loginSession(server, ADMIN)).token;
  // No scheduled scan may start beside the ones these tests start.
  await api("/api/v1/admin/settings", adminToken, { method: "PUT", json: { scanSchedule: { quick: null, full: null } } });
});

describe("web app: what confused a new user", { timeout: 180_000 }, () => {
  it("edits every server setting on its own page, in the API's words as one types, and keeps a saved schedule after a reload", async () => {
    const page = await pages.signInAt("admin", ADMIN, "admin/backups");
    await page.getByRole("link", { name: "Change in server settings" }).click();
    await page.getByRole("heading", { name: "Server settings", level: 1 }).waitFor(WAIT);
    expect(new URL(page.url()).hash).toBe("#backups");

    // As the user types: the API's own sentences, beside the field.
    const schedule = page.getByLabel("Backup schedule");
    await schedule.focus();
    await page.keyboard.type("every night");
    const fiveFields = "The backup schedule must be a cron expression of five fields: minute hour day month weekday (UTC).";
    await page.getByText(fiveFields).waitFor(WAIT);
    expect(await schedule.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(`#${await schedule.getAttribute("aria-describedby")}`).innerText()).toBe(fiveFields);
    await schedule.fill("61 2 * * *");
    await page.getByText("The backup schedule must be a valid cron expression: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–7 (UTC).").waitFor(WAIT);
    // The API refuses the same value in the same words.
    const refused = await server.request("/api/v1/admin/settings", { method: "PUT", token: adminToken, json: { backupSchedule: "every night" } });
    expect(((await refused.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toBe(fiveFields);

    await schedule.fill("30 2 * * *");
    await page.getByText(/^At 02:30 \(UTC\)\. Next: .+ \(your time\)\.$/).waitFor(WAIT);
    const keepDays = page.getByLabel("Keep backups for (days)");
    await keepDays.fill("0");
    await page.getByText("Backup keep days must be at least 1.").waitFor(WAIT);
    await keepDays.fill("14");
    await keepDays.press("Enter");
    await page.getByText("Settings saved.").waitFor(WAIT);
    expect(await api<Record<string, unknown>>("/api/v1/admin/settings", adminToken)).toMatchObject({ backupSchedule: "30 2 * * *", backupKeepDays: 14 });
    await page.reload();
    await expect.poll(() => page.getByLabel("Backup schedule").inputValue()).toBe("30 2 * * *");
    expect(await page.getByLabel("Keep backups for (days)").inputValue()).toBe("14");

    // Should the API refuse what the page let through, its message stands beside the field it names.
    await page.route("**/trpc/admin.updateSettings**", (route) => {
      const body = JSON.parse(route.request().postData() ?? "{}") as Record<string, { update: Record<string, unknown> }>;
      for (const call of Object.values(body)) call.update.staleAssignedHours = 0;
      return route.continue({ postData: JSON.stringify(body) });
    });
    await page.getByLabel("Minimum plugin version").fill("3.8.0.0");
    await page.getByRole("button", { name: "Save settings" }).click();
    const stale = page.getByLabel("Stale assigned after (hours)");
    await expect.poll(() => stale.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(`#${await stale.getAttribute("aria-describedby")}`).innerText()).toBe("Stale assigned hours must be at least 1.");
    await page.unroute("**/trpc/admin.updateSettings**");

    // The administration page and the integrity page lead here too.
    await page.goto(appUrl(server, "admin"));
    await page
      .getByRole("list", { name: "Administration sections" })
      .getByRole("link", { name: /Server settings/ })
      .click();
    await page.getByRole("heading", { name: "Server settings", level: 1 }).waitFor(WAIT);
    await page.goto(appUrl(server, "admin/integrity"));
    await page.getByRole("link", { name: "Change the schedule" }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe("#scans");
  });

  it("keeps the integrity page's scan and filters in the URL, lists critical issues first, and disables a repair of nothing", async () => {
    const { user, observatory, project } = await observer("Ilse Integrity");
    const { db, storage } = server.server.runtime.deps;
    const refs = { projectId: project.id, observatoryId: observatory.id, ownerId: user.user.id };
    const withLostFile = (await observationsCollection.insert(db, observationDocument(refs, { name: `Lost file ${tag()}` }))).id;
    const lost = await filesCollection.insert(db, fileDocument(withLostFile, observatory.id, "m31-0001.fits"));
    const kept = await filesCollection.insert(db, fileDocument(withLostFile, observatory.id, "m31-0002.fits"));
    await storage.put(kept.doc.objectKey, Buffer.from("12345"));
    await observationsCollection.insert(db, observationDocument(refs, { name: `Stuck ${tag()}`, ...stuckFor("assigned", 72) }));
    await observationsCollection.insert(db, observationDocument(refs, { name: `Pipeline test ${tag()}` }));

    const full = await api("/api/v1/admin/integrity/scans", adminToken, {
      json: { kind: "full", collections: ["observations", "files"], checkStorage: true, includeTestData: true },
    });
    await scanToEnd(full.id);
    const page = await pages.signInAt("admin", ADMIN, `admin/integrity?scan=${full.id}`);
    await page.getByRole("table", { name: "Issues" }).waitFor(WAIT);
    const rank = { critical: 0, warning: 1, info: 2 } as Record<string, number>;
    const shown = await severitiesShown(page);
    expect(shown[0]).toBe("critical");
    expect(shown).toEqual(expect.arrayContaining(["critical", "warning", "info"]));
    expect(shown.map((severity) => rank[severity])).toEqual(shown.map((severity) => rank[severity]).sort());

    // A filter goes into the URL; a reload shows the same scan, filtered the same way.
    await page.getByLabel("Severity").selectOption("warning");
    await expect.poll(() => new URL(page.url()).searchParams.get("severity")).toBe("warning");
    await page.reload();
    await page.getByRole("table", { name: "Issues" }).waitFor(WAIT);
    expect(await page.getByLabel("Severity").inputValue()).toBe("warning");
    await expect.poll(() => severitiesShown(page)).toEqual(["warning"]);

    // A lost file: what to do, a link to its observation, and the observation shows the file as missing.
    await page.getByLabel("Severity").selectOption("critical");
    await page.getByRole("button", { name: `Details of FILE_MISSING on ${lost.id}` }).click();
    const drawer = page.getByRole("dialog", { name: "FILE_MISSING" });
    await drawer.getByRole("heading", { name: "What to do" }).waitFor(WAIT);
    await drawer.getByText(/ask the observatory's operators to upload it again/).waitFor(WAIT);
    await drawer.getByRole("link", { name: "Open the observation" }).click();
    await page.getByRole("heading", { level: 1, name: /^Lost file/ }).waitFor(WAIT);
    const files = page.getByRole("list", { name: "Files" });
    const lostItem = files.getByRole("listitem").filter({ hasText: "m31-0001.fits" });
    await lostItem.getByText("Missing", { exact: true }).waitFor(WAIT);
    await lostItem.getByText(/gone from storage/).waitFor(WAIT);
    expect(await lostItem.getByRole("link", { name: /Download/ }).count()).toBe(0);
    await files.getByRole("link", { name: "Download m31-0002.fits" }).waitFor(WAIT);

    // A scan with nothing auto-fixable: the bulk repair cannot be started. A scan from the command line says so.
    const { deps } = server.server.runtime;
    const cli = await startIntegrityScan({ deps, actor: null, trigger: "cli", kind: "full", input: { collections: ["files"], checkStorage: true } });
    await scanToEnd(cli.id);
    await page.goto(appUrl(server, `admin/integrity?scan=${cli.id}`));
    await page.getByRole("table", { name: "Issues" }).waitFor(WAIT);
    const repairNothing = page.getByRole("button", { name: "No auto-fixable issues to repair" });
    await repairNothing.waitFor(WAIT);
    expect(await repairNothing.isDisabled()).toBe(true);
    const history = page.getByRole("table", { name: "Scans" });
    await history.locator('tr[aria-current="true"]').getByText("from the command line").waitFor(WAIT);
    // Without a scan in the URL, the newest one is shown, and named in the URL for the next reload.
    await page.goto(appUrl(server, "admin/integrity"));
    await expect.poll(() => new URL(page.url()).searchParams.get("scan")).toBe(cli.id);
    await page.getByRole("table", { name: "Issues" }).getByText("FILE_MISSING").first().waitFor(WAIT);

    // Once a repair removed its record, the card still names it: lost, and when.
    const issues = await api<{ items: Array<{ id: string; code: string; documentId: string }> }>(
      `/api/v1/admin/integrity/scans/${full.id}/issues?type=file&limit=200`,
      adminToken,
    );
    const missing = issues.items.find((issue) => issue.code === "FILE_MISSING" && issue.documentId === lost.id)!;
    await api(`/api/v1/admin/integrity/issues/${missing.id}/repair`, adminToken, { method: "POST" });
    await page.goto(appUrl(server, `observations/${withLostFile}`));
    await lostItem.getByText("Lost", { exact: true }).waitFor(WAIT);
    await lostItem.getByText(/^Lost: its bytes were gone from storage when an integrity scan looked on .+, and its record was removed on /).waitFor(WAIT);
    expect(await lostItem.locator("time").count()).toBe(2);
  });

  it("loads each page without React Router's HydrateFallback warning", async () => {
    const page = await pages.signIn("admin", ADMIN);
    const warnings: string[] = [];
    page.on("console", (message) => {
      if (/HydrateFallback/.test(message.text())) warnings.push(`${page.url()}: ${message.text()}`);
    });
    for (const route of ["observations", "observatories", "admin", "admin/settings", "admin/integrity", "profile"]) {
      await page.goto(appUrl(server, route));
      await page.getByRole("heading", { level: 1 }).first().waitFor(WAIT);
    }
    expect(warnings).toEqual([]);
  });
});
