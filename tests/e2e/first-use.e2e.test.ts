import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { ObservatorySimulator } from "@meridian/simulator";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loginSession } from "../support/auth-suite";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, settled, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { fillFirstTarget, nextStep } from "./support/wizard";

/**
 * A new user's first steps in the browser. What confused a new user (issue 22) that only a browser shows: the way to
 * the server settings, Enter saving them and a reload keeping them, and React Router's warning on every load; the
 * settings page's checks and the integrity page's URL, order and repairs are in apps/web/src/pages/ServerSettingsPage.test.tsx
 * and IntegrityPage.test.tsx. Then a brand-new account's first night (issue 24 point 8): the dashboard's checklist, each
 * step done where its link leads, ticked from what the server sees, and gone once everything is done. Hiding it, what a
 * member of someone else's observatory is told, and its steps' states are in apps/web/src/dashboard/GettingStarted.test.tsx.
 */
const ADMIN = { email: "first-use-admin@example.com", password: "first use admin password" };
// The worker runs in the server process, so the first night's observation is really dispatched.
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

beforeAll(async () => {
  server = suite.server();
  adminToken = (await loginSession(server, ADMIN)).token;
  // No scheduled scan runs beside these tests.
  await api("/api/v1/admin/settings", adminToken, { method: "PUT", json: { scanSchedule: { quick: null, full: null } } });
});

describe("web app: what confused a new user", { timeout: 180_000 }, () => {
  it("reaches the server settings from the pages that name them, saves one by Enter, and keeps it after a reload", async () => {
    const page = await pages.signInAt("admin", ADMIN, "admin/backups");
    await page.getByRole("link", { name: "Change in server settings" }).click();
    await page.getByRole("heading", { name: "Server settings", level: 1 }).waitFor(WAIT);
    expect(new URL(page.url()).hash).toBe("#backups");

    // By keyboard: Enter in a field saves the form, and a reload shows what was saved. The page's checks as one types,
    // what it sends and the API's refusal beside its field are in apps/web/src/pages/ServerSettingsPage.test.tsx; the API's
    // words and the saved value in tests/integration/observations-api.test.ts ("server settings").
    const schedule = page.getByLabel("Backup schedule");
    await schedule.fill("30 2 * * *");
    await page.getByText(/^At 02:30 \(UTC\)\. Next: .+ \(your time\)\.$/).waitFor(WAIT);
    const keepDays = page.getByLabel("Keep backups for (days)");
    await keepDays.fill("14");
    await keepDays.press("Enter");
    await page.getByText("Settings saved.").waitFor(WAIT);
    await page.reload();
    await expect.poll(() => page.getByLabel("Backup schedule").inputValue()).toBe("30 2 * * *");
    expect(await page.getByLabel("Keep backups for (days)").inputValue()).toBe("14");

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

const checklist = (page: Page) => page.getByRole("region", { name: "Your first night" });
/** A step's heading, as a screen reader reads it: "Done: 2. Set the observatory's location". */
const step = (page: Page, state: "Done" | "To do", number: number, title: string) =>
  checklist(page).getByRole("heading", { level: 3, name: `${state}: ${number}. ${title}` });
/** Back to the dashboard by the side navigation, without a reload (a key just created stays in this tab's memory). */
const toDashboard = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();

async function newcomer(name: string) {
  const account = await signupUser(server, { name });
  return { account, page: await suite.pages.signIn(name, { email: account.user.email, password: account.password }) };
}

describe("web app: a new user's first night", { timeout: 180_000 }, () => {
  it("walks a brand-new account through the checklist by keyboard, with the simulator command, until it disappears", async () => {
    const { page } = await newcomer("Nadia Newcomer");
    const dome = `Dome ${tag()}`;
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);

    // Everything to do, as an ordered list with a heading per step.
    const list = checklist(page).getByRole("list", { name: "Your first night" });
    await list.waitFor(WAIT);
    expect(await list.getByRole("listitem").count()).toBe(5);
    await step(page, "To do", 1, "Join or create an organization or observatory").waitFor(WAIT);
    await checklist(page).getByText("0 of 5 steps done.", { exact: false }).waitFor(WAIT);

    // 1. An observatory, from the checklist's own button; focus comes back to the checklist.
    await checklist(page).getByRole("button", { name: "New observatory" }).press("Enter");
    const create = page.getByRole("dialog", { name: "Create observatory" });
    await create.getByLabel("Observatory name").fill(dome);
    await create.getByLabel("Observatory name").press("Enter");
    await step(page, "Done", 1, "Join or create an organization or observatory").waitFor(WAIT);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Your first night");

    // 2. The location: the link opens the observatory's settings.
    await checklist(page)
      .getByRole("link", { name: `Set the location of ${dome}` })
      .press("Enter");
    const settings = page.getByRole("dialog", { name: "Observatory settings" });
    // Out of range and incomplete: both said at once, before anything is sent.
    await settings.getByLabel("Latitude").fill("128.7");
    await settings.getByRole("button", { name: "Save settings" }).press("Enter");
    await settings.getByText("Latitude must be at most 90.").waitFor(WAIT);
    expect(await settings.getByText("Enter all three values, or none.").count()).toBe(2);
    await settings.getByLabel("Latitude").fill("28.76");
    await settings.getByLabel("Longitude").fill("-17.88");
    await settings.getByLabel("Elevation (m)").fill("2396");
    await settings.getByRole("button", { name: "Save settings" }).press("Enter");
    await page.getByText("Settings saved.").waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get("settings")).toBeNull();
    await toDashboard(page);
    await step(page, "Done", 2, "Set the observatory's location").waitFor(WAIT);

    // 3. A plugin key on the keys tab, shown once with the exact command, which the copy button copies.
    const pluginStep = "Create a plugin key and connect a plugin";
    await step(page, "To do", 3, pluginStep).waitFor(WAIT);
    await checklist(page).getByText(`pnpm simulate:observatory --url ${server.url} --key <observatory key> --speed 60`).waitFor(WAIT);
    await checklist(page).getByRole("link", { name: "the plugin protocol description" }).waitFor(WAIT);
    await checklist(page)
      .getByRole("link", { name: `Create a plugin key for ${dome}` })
      .press("Enter");
    await page.getByRole("tab", { name: "Plugin keys", selected: true }).waitFor(WAIT);
    await page.getByLabel("Key name").fill("Dome computer");
    await page.getByLabel("Key name").press("Enter");
    const notice = page.getByRole("region", { name: "Plugin key “Dome computer” created" });
    const shown = notice.locator("pre");
    await shown.waitFor(WAIT);
    const command = (await shown.innerText()).trim();
    const parsed = /^pnpm simulate:observatory --url (\S+) --key (mok_\S+) --speed 60$/.exec(command);
    expect(parsed?.[1]).toBe(server.url);
    expect(parsed?.[2]).toBe(await notice.getByLabel("New plugin key").inputValue());
    await notice.getByRole("button", { name: "Copy command" }).press("Enter");
    await notice.getByText("Copied").waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);

    // The dashboard shows the same command with the key until the page is reloaded.
    await toDashboard(page);
    await checklist(page).getByText(command).waitFor(WAIT);
    // Then the simulator, run as the command says, connects; the step ticks without a reload.
    const simulator = new ObservatorySimulator({ url: parsed![1]!, key: parsed![2]!, speed: 60 });
    onTestFinished(() => simulator.close().catch(() => undefined));
    await simulator.connect();
    await step(page, "Done", 3, pluginStep).waitFor({ timeout: 30_000 });

    // 4. A project, from the checklist's button.
    const survey = `Survey ${tag()}`;
    await checklist(page).getByRole("button", { name: "New project" }).press("Enter");
    const project = page.getByRole("dialog", { name: "Create project" });
    await project.getByLabel("Project name").fill(survey);
    await project.getByRole("button", { name: "Create project" }).press("Enter");
    await step(page, "Done", 4, "Create a project").waitFor(WAIT);

    // 5. An observation through the wizard.
    await checklist(page).getByRole("link", { name: "New observation" }).press("Enter");
    await page.getByRole("heading", { level: 2, name: /^Step 1 of 5/ }).waitFor(WAIT);
    await page.getByLabel("Name", { exact: true }).fill(`First light ${tag()}`);
    await page.getByLabel("Project").selectOption({ label: survey });
    await page.getByLabel("Observatory").selectOption({ index: 1 });
    await nextStep(page, 2, "keyboard");
    await fillFirstTarget(page, { name: "M 31", ra: "10.6847", dec: "41.269", seconds: "2" });
    for (const step of [3, 4, 5]) await nextStep(page, step, "keyboard");
    await page.getByRole("button", { name: "Submit observation" }).press("Enter");
    await page.getByRole("heading", { level: 1, name: /^First light/ }).waitFor(WAIT);

    // Everything done: the checklist is gone, and stays gone.
    await toDashboard(page);
    await page.getByRole("heading", { name: "Your observatories" }).waitFor(WAIT);
    await checklist(page).waitFor({ state: "detached", ...WAIT });
    await page.reload();
    await page.getByRole("heading", { name: "Your observatories" }).waitFor(WAIT);
    await settled(page);
    expect(await checklist(page).count()).toBe(0);
  });

  it("has no dead end after an organization comes first: New observatory stays offered, and the wizard makes, preselects and keeps", async () => {
    const { page } = await newcomer("Olga Orgfirst");
    await checklist(page).getByRole("button", { name: "New organization" }).press("Enter");
    const organization = page.getByRole("dialog", { name: "Create organization" });
    const club = tag();
    await organization.getByLabel("Name", { exact: true }).fill(`Club ${club}`);
    await organization.getByLabel("Short name").fill(`club-${club}`);
    await organization.getByLabel("Type").selectOption("nonprofit");
    await organization.getByLabel("Contact email").fill(`club-${club}@example.org`);
    await organization.getByRole("button", { name: "Create organization" }).press("Enter");
    await step(page, "Done", 1, "Join or create an organization or observatory").waitFor(WAIT);
    // The first step is done, yet there is no observatory: the next step offers one.
    await checklist(page).getByRole("button", { name: "New observatory" }).waitFor(WAIT);

    // The wizard with nothing to choose offers to make each, and chooses what is made.
    await checklist(page).getByRole("link", { name: "New observation" }).press("Enter");
    await page.getByRole("heading", { level: 2, name: /^Step 1 of 5/ }).waitFor(WAIT);
    const survey = `Survey ${tag()}`;
    await page.getByRole("button", { name: "New project" }).press("Enter");
    const project = page.getByRole("dialog", { name: "Create project" });
    await project.getByLabel("Project name").fill(survey);
    await project.getByRole("button", { name: "Create project" }).press("Enter");
    await expect.poll(() => page.getByLabel("Project").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text), WAIT).toBe(survey);
    const dome = `Dome ${tag()}`;
    await page.getByRole("button", { name: "New observatory" }).press("Enter");
    const observatory = page.getByRole("dialog", { name: "Create observatory" });
    await observatory.getByLabel("Observatory name").fill(dome);
    await observatory.getByLabel("Observatory name").press("Enter");
    await expect
      .poll(() => page.getByLabel("Observatory").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text), WAIT)
      .toMatch(new RegExp(`^${dome}`));
    expect(await page.getByRole("button", { name: "New project" }).count()).toBe(0);

    // Leaving with a filled draft asks first; Keep editing keeps it, Discard leaves.
    const name = page.getByLabel("Name", { exact: true });
    await name.fill("First light");
    const question = page.getByRole("alertdialog", { name: "Discard your changes?" });
    await page.getByRole("link", { name: "← Observations" }).press("Enter");
    await question.getByRole("button", { name: "Keep editing" }).press("Enter");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(new URL(page.url()).pathname).toMatch(/\/observations\/new$/);
    expect(await name.inputValue()).toBe("First light");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboard" }).click();
    await question.getByRole("button", { name: "Discard" }).click();
    await page.waitForURL((url) => !url.pathname.endsWith("/observations/new"), WAIT);

    // With one project and one observatory, both are chosen from the start; an untouched draft leaves without asking.
    await page.goto(appUrl(server, "observations/new"));
    await expect.poll(() => page.getByLabel("Project").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text), WAIT).toBe(survey);
    await expect
      .poll(() => page.getByLabel("Observatory").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text), WAIT)
      .toMatch(new RegExp(`^${dome}`));
    await page.getByRole("link", { name: "← Observations" }).click();
    await page.getByRole("heading", { level: 1, name: "Observations" }).waitFor(WAIT);
    expect(await question.count()).toBe(0);
  });
});
