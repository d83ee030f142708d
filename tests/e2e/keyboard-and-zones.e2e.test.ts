import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession } from "../support/auth-suite";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, signIn, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { descriptionOf, focusedLabel, isFocused, raDegrees, retype, stepHeading, tabTo } from "./support/wizard";

/**
 * The keyboard paths only a browser decides: the focus trap of a modal (the phone navigation drawer), Escape
 * on a dialog and its discard question, where focus goes back to, the focus outline's computed style, where focus
 * goes when a busy button drops it after a refusal, and a dialog's Send kept on a laptop's screen. What the pages do
 * with the keys and what they offer is in component tests: layout/UserMenu.test.tsx, pages/page-titles.test.tsx,
 * admin/AdminUsersPage.test.tsx, pages/AdministrationPage.test.tsx, announcements/CreateAnnouncementDialog.test.tsx,
 * organizations/CreateOrganizationDialog.test.tsx.
 *
 * Then the browser's own zone (Santiago) against the observatory's and UTC, by the profile's choice. The observatory's
 * zone and timings in its settings, the wizard's and the edit dialog's zoned windows and a monitoring cadence are in
 * component tests (observatories/EditObservatoryDialog.test.tsx, observations/wizard/NewObservationPage.test.tsx,
 * observations/ObservationPage.test.tsx).
 */
const ADMIN = { email: "guards-admin@example.com", password: "guards admin password" };
const PHONE = { width: 390, height: 844 };
const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

/** Where keyboard focus is: in `container` or elsewhere in the page (with the element's name), or on the body (nothing in the page has it). */
const focusRelativeTo = (container: Locator) =>
  container.evaluate((element) => {
    const focused = document.activeElement;
    if (!focused || focused === document.body) return "body";
    const name = focused.getAttribute("aria-label") ?? focused.textContent?.trim() ?? focused.tagName;
    return `${element.contains(focused) ? "inside" : "outside"}: ${name}`;
  });

/** The accessible name of the focused element, as far as these pages name their controls. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement;
    return focused === document.body ? "body" : (focused?.getAttribute("aria-label") ?? focused?.textContent?.trim() ?? "");
  });

/** What shows that an element has focus: its outline (when drawn) and its box shadow. */
const focusIndicator = (element: Locator) =>
  element.evaluate((target) => {
    const style = getComputedStyle(target);
    const drawn = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    return { outline: drawn ? `${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}` : "none", boxShadow: style.boxShadow };
  });

const userRow = (page: Page, email: string) => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: email });

describe("web app: keyboard use and administration guards", { timeout: 90_000 }, () => {
  it("keeps keyboard focus in the phone navigation drawer while it is open, and gives it back to its button; the page chosen fits", async () => {
    const page = await suite.pages.signInAt("phone", ADMIN, "", PHONE);
    await page.getByRole("heading", { name: /^Welcome/ }).waitFor(WAIT);
    const openButton = page.getByRole("button", { name: "Open navigation" });
    const drawer = page.getByRole("dialog", { name: "Navigation" });
    await openButton.focus();
    await page.keyboard.press("Enter");
    await drawer.waitFor(WAIT);
    await expect.poll(() => focusRelativeTo(drawer)).toMatch(/^inside: (Close navigation|Dashboard)$/);

    // More stops than the drawer has, each way: focus never reaches the page behind it. Past its last
    // stop a modal dialog lets focus out to the browser's own controls (the body, headless) only.
    const stops = await drawer.locator("a[href], button:not([disabled])").count();
    for (const key of ["Tab", "Shift+Tab"]) {
      const visited = new Set<string>();
      for (let step = 0; step < stops + 2; step += 1) {
        await page.keyboard.press(key);
        const where = await focusRelativeTo(drawer);
        expect(where, `${key} number ${step + 1}`).not.toMatch(/^outside/);
        visited.add(where);
      }
      expect(visited, `${key} went through the drawer's links`).toContain("inside: Jobs");
    }
    // A link focused from the keyboard shows the app's focus outline, as buttons do.
    const jobs = drawer.getByRole("link", { name: "Jobs" });
    await jobs.focus();
    expect((await focusIndicator(jobs)).outline).toMatch(/^2px solid /);

    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => focusedName(page)).toBe("Open navigation");

    await page.keyboard.press("Enter");
    await drawer.waitFor(WAIT);
    await drawer.getByRole("button", { name: "Close navigation" }).click();
    await drawer.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => focusedName(page)).toBe("Open navigation");

    // Choosing a page closes it too. That page, a server administrator's list of every organization, fits a 375px phone.
    const { token } = await loginSession(suite.server(), ADMIN);
    const json = { name: "Phone-width Astronomical Society of the Southern Hills", shortName: `phone-${randomBytes(3).toString("hex")}`, type: "other" };
    await suite.api("/organizations", token, { method: "POST", json: { ...json, contactEmail: "phone-width@example.com" } });
    await openButton.click();
    await drawer.getByRole("link", { name: "Organizations" }).click();
    await page.getByRole("heading", { name: "Organizations", level: 1 }).waitFor(WAIT);
    await drawer.waitFor({ state: "hidden", ...WAIT });
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole("switch", { name: "All organizations" }).check();
    await page.getByRole("table", { name: "All organizations" }).getByRole("link", { name: json.name }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });

  it("marks the account menu's focused item with the app's focus outline", async () => {
    const page = await suite.pages.signInAt("menu", ADMIN, "");
    const menuButton = page.getByRole("button", { name: "Account menu" });
    await menuButton.focus();
    await page.keyboard.press("ArrowDown");
    const menu = page.getByRole("menu", { name: "Account" });
    const profile = menu.getByRole("menuitem", { name: "Profile" });
    const security = menu.getByRole("menuitem", { name: "Security" });
    await expect.poll(() => focusedName(page)).toBe("Profile");

    const focused = await focusIndicator(profile);
    const unfocused = await focusIndicator(security);
    expect(focused.outline).toMatch(/^2px solid /);
    expect(focused).not.toEqual(unfocused);

    // The indicator follows focus, in the colour of the menu button's own focus outline.
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focusedName(page)).toBe("Security");
    expect(await focusIndicator(security)).toEqual(focused);
    expect(await focusIndicator(profile)).toEqual(unfocused);
    await page.keyboard.press("Escape");
    await expect.poll(() => focusedName(page)).toBe("Account menu");
    const buttonOutline = (await focusIndicator(menuButton)).outline;
    expect(focused.outline.split(" solid ")[1]).toBe(buttonOutline.split(" solid ")[1]);
  });

  it("gives focus to a dialog's way back when the server refuses and its busy button drops focus, then back to the opener", async () => {
    const colleague = await createAccount(suite.server(), { name: "Colleague Admin" });
    const { token } = await loginSession(suite.server(), ADMIN);
    await suite.api(`/api/v1/admin/users/${colleague.id}`, token, { method: "PUT", json: { roles: ["serverAdmin"] } });
    const page = await suite.pages.signInAt("admin", ADMIN, "admin/users");
    const own = userRow(page, ADMIN.email);
    await own.getByText("(you)").waitFor(WAIT);
    const removeSelf = own.getByRole("button", { name: /^Remove server admin/ });
    await expect.poll(() => removeSelf.isDisabled()).toBe(false);

    // The colleague loses the role behind this page's back, so the server refuses what the page still offers.
    await removeSelf.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Remove server admin?" });
    await dialog.waitFor(WAIT);
    await suite.api(`/api/v1/admin/users/${colleague.id}`, token, { method: "PUT", json: { roles: [] } });
    await dialog.getByRole("button", { name: "Remove server admin" }).click();
    await dialog.getByRole("alert").filter({ hasText: "without an enabled server administrator" }).waitFor(WAIT);
    await expect.poll(() => focusRelativeTo(dialog)).toBe("inside: Cancel");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => focusedName(page)).toBe(await removeSelf.getAttribute("aria-label"));
  });

  it("walks a form dialog by keyboard (Escape, the discard question, where focus returns, a refusal's field); a dialog's Send fits a laptop", async () => {
    const { token } = await loginSession(suite.server(), ADMIN);
    const taken = `taken-${randomBytes(3).toString("hex")}`;
    await suite.api("/organizations", token, {
      method: "POST",
      json: { name: "Holder of the name", shortName: taken, type: "other", contactEmail: "holder@example.com" },
    });
    const page = await suite.pages.signInAt("admin", ADMIN, "organizations");
    const opener = page.getByRole("main").getByRole("button", { name: "New organization" }).first();
    const create = page.getByRole("dialog", { name: "Create organization" });
    const name = create.getByLabel("Name", { exact: true });
    const question = page.getByRole("alertdialog", { name: "Discard your changes?" });
    /** Opens the dialog from its button by Enter: focus starts on Name. */
    const open = async () => {
      await opener.focus();
      await page.keyboard.press("Enter");
      await create.waitFor(WAIT);
      await expect.poll(() => isFocused(name)).toBe(true);
    };

    // Untouched: Escape closes it, and focus goes back to its button.
    await open();
    await page.keyboard.press("Escape");
    await create.waitFor({ state: "detached", ...WAIT });
    await expect.poll(() => isFocused(opener)).toBe(true);

    // Typed: Escape asks, with Keep editing focused; Enter keeps the text and focus in the field.
    await open();
    await page.keyboard.type("Half-typed network");
    await page.keyboard.press("Escape");
    await question.waitFor(WAIT);
    await expect.poll(() => isFocused(question.getByRole("button", { name: "Keep editing" }))).toBe(true);
    await page.keyboard.press("Enter");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await name.inputValue()).toBe("Half-typed network");
    await expect.poll(() => isFocused(name)).toBe(true);
    // The close button asks too, and Escape on the question is Keep editing: focus back on that button.
    await page.keyboard.press("Shift+Tab");
    const close = create.getByRole("button", { name: "Close" });
    await expect.poll(() => isFocused(close)).toBe(true);
    await page.keyboard.press("Enter");
    await question.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await name.inputValue()).toBe("Half-typed network");
    await expect.poll(() => isFocused(close)).toBe(true);
    // Discard, reached by Tab, closes it, and focus goes back to its button.
    await page.keyboard.press("Escape");
    await question.waitFor(WAIT);
    await page.keyboard.press("Tab");
    await expect.poll(() => isFocused(question.getByRole("button", { name: "Discard" }))).toBe(true);
    await page.keyboard.press("Enter");
    await create.waitFor({ state: "detached", ...WAIT });
    expect(await question.count()).toBe(0);
    await expect.poll(() => isFocused(opener)).toBe(true);

    // Typed and deleted again: nothing differs from the start, so Escape closes it at once.
    await open();
    await page.keyboard.type("x");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Escape");
    await create.waitFor({ state: "detached", ...WAIT });
    expect(await question.count()).toBe(0);

    // Sent from the submit button itself, which is disabled while the request runs and so drops focus: the
    // refusal puts it on the field in error, inside the dialog; Escape then asks, and Enter comes back to that field.
    await open();
    await page.keyboard.type("Second holder");
    await page.keyboard.press("Tab");
    await page.keyboard.type(taken);
    await page.keyboard.press("Tab");
    const type = create.getByLabel("Type");
    await expect.poll(() => isFocused(type)).toBe(true);
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => type.inputValue()).not.toBe("");
    await create.getByLabel("Contact email").focus();
    await page.keyboard.type("second@example.com");
    await create.getByRole("button", { name: "Create organization" }).focus();
    await page.keyboard.press("Enter");
    const shortName = create.getByLabel("Short name");
    await expect.poll(() => shortName.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => isFocused(shortName)).toBe(true);
    await page.keyboard.press("Escape");
    await question.waitFor(WAIT);
    await page.keyboard.press("Enter");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await shortName.inputValue()).toBe(taken);
    await expect.poll(() => isFocused(shortName)).toBe(true);

    // The announcement dialog keeps its Send on a laptop's screen.
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(appUrl(suite.server(), "announcements"));
    await page.getByRole("button", { name: "New system announcement" }).click();
    const dialog = page.getByRole("dialog", { name: "New system announcement" });
    await dialog.waitFor(WAIT);
    const box = await dialog.getByRole("button", { name: /^Send/ }).boundingBox();
    expect(box && box.y + box.height).toBeLessThanOrEqual(720);
  });
});

let server: TestServer;
beforeAll(() => {
  server = suite.server();
});

async function api<T>(pathname: string, token: string, json?: unknown, method = json === undefined ? "GET" : "POST"): Promise<T> {
  const response = await server.request(pathname, { method, token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const sidingSpring = { latitude: -31.2733, longitude: 149.0617, elevation: 1165 };

/** A user with an observatory at Siding Spring (Australia/Sydney), a project, and a page signed in from a browser in Santiago. */
async function setUp() {
  const tag = randomBytes(3).toString("hex");
  const owner = await signupUser(server, { name: `Tess ${tag}` });
  const observatory = await api<{ id: string; timeZone: string }>("/observatories", owner.token, { name: `Siding Spring ${tag}`, location: sidingSpring });
  const project = await api<{ id: string }>("/projects", owner.token, { name: `Survey ${tag}` });
  // A browser zone unlike the observatory's and UTC, so each choice shows another hour.
  const context = await suite.browser().newContext({ viewport: { width: 1280, height: 900 }, timezoneId: "America/Santiago", locale: "en-US" });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => suite.pageErrors.push(error.message));
  await signIn(page, server, owner.user.email, owner.password);
  return { tag, owner, observatory, project, page, close: () => context.close() };
}

/** The "Not before" time of the observation page's timing card. */
const notBefore = (page: Page) =>
  page
    .getByRole("term")
    .filter({ hasText: /^Not before$/ })
    .locator("xpath=following-sibling::dd[1]//time");

describe("times of an observatory", { timeout: 120_000 }, () => {
  it("show in the observatory's zone named by its UTC offset, UTC on hover; every page follows the profile's choice of UTC or the browser's", async () => {
    const { owner, observatory, project, page, close } = await setUp();
    try {
      expect(observatory.timeZone).toBe("Australia/Sydney");
      // 10:00 UTC on 2 January is 21:00 in Sydney (UTC+11 in its summer) and 07:00 in Santiago (UTC−3).
      const start = "2031-01-02T10:00:00.000Z";
      const observation = await api<{ id: string }>("/observations", owner.token, {
        name: "Eta Carinae",
        projectId: project.id,
        observatoryId: observatory.id,
        type: "fixed_time",
        fixedTimeStart: start,
        targets: [{ name: "Eta Carinae", ra: 161.265, dec: -59.685, exposures: [{ filter: "R", exposureSeconds: 60, count: 3, binning: 1 }] }],
      });

      // Every page reads the clock one way, 24 hours, even in a 12-hour locale (en-US): the observatory's
      // queue (its darkness), the same hours its Tonight tab's axes and bars use.
      await page.goto(appUrl(server, `observatories/${observatory.id}?tab=queue`));
      const darkness = page.getByRole("heading", { name: "Darkness" }).locator("xpath=ancestor::*[.//time][1]").locator("time");
      await expect.poll(() => darkness.count(), WAIT).toBe(2);
      for (const text of await darkness.allTextContents()) expect(text).toMatch(/, [0-2]\d:[0-5]\d UTC\+1[01]$/);
      await page.getByRole("tab", { name: "Tonight" }).click();
      const axis = page.getByRole("img", { name: /^Altitude of / });
      await axis.waitFor(WAIT);
      const hours = (await axis.locator("text").allTextContents()).filter((text) => text.includes(":"));
      expect(hours.length).toBeGreaterThan(0);
      for (const hour of hours) expect(hour).toMatch(/^[0-2]\d:00$/);

      await page.goto(appUrl(server, `observations/${observation.id}`));
      const time = notBefore(page);
      await expect.poll(() => time.textContent(), WAIT).toMatch(/^Jan 2, 2031, 21:00 UTC\+11$/);
      expect(await time.getAttribute("dateTime")).toBe(start);
      expect(await time.getAttribute("title")).toBe("2031-01-02 10:00 UTC");
      // The estimate: one 120 s slew, three 60 s exposures with a 10 s readout each.
      await page.getByText("5 min 30 s", { exact: true }).waitFor(WAIT);

      // The observations table: an observation's times in its observatory's zone, each naming it, the same way.
      await page.goto(appUrl(server, "observations"));
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Eta Carinae", exact: true }) });
      await expect.poll(() => row.locator("time").count(), WAIT).toBe(2);
      for (const text of await row.locator("time").allTextContents()) expect(text).toMatch(/ [0-2]\d:[0-5]\d UTC\+1[01]$/);

      // The profile's choice: UTC, saved at once.
      await page.goto(appUrl(server, "profile"));
      await page.getByRole("radio", { name: /^UTC/ }).check();
      await page.getByText("Time display saved").waitFor(WAIT);
      expect(await api<{ timeDisplay?: string }>("/api/v1/user/profile", owner.token)).toMatchObject({ timeDisplay: "utc" });
      await page.goto(appUrl(server, `observations/${observation.id}`));
      await expect.poll(() => notBefore(page).textContent(), WAIT).toMatch(/^Jan 2, 2031, 10:00 UTC$/);

      // The browser's zone, also after a reload.
      await page.goto(appUrl(server, "profile"));
      await page.getByRole("radio", { name: /^Your browser's time zone/ }).check();
      await page.getByText("Time display saved").waitFor(WAIT);
      await page.goto(appUrl(server, `observations/${observation.id}`));
      await page.reload();
      // Named too, as every time is: the browser's zone by its offset, the one form every page uses.
      await expect.poll(() => notBefore(page).textContent(), WAIT).toMatch(/^Jan 2, 2031, 07:00 UTC-3$/);
    } finally {
      await close();
    }
  });
});

describe("the submission wizard, by keyboard", { timeout: 120_000 }, () => {
  it("resolves target names from the catalog, checks each field as it is typed, refuses Next until the step is right, and submits", async () => {
    const owner = await signupUser(server, { name: "Wanda Wizard" });
    const tag = randomBytes(3).toString("hex");
    await api("/observatories", owner.token, { name: `Dome ${tag}` });
    await api("/projects", owner.token, { name: `Survey ${tag}` });
    const orion = await api<{ name: string; ra: number; dec: number; designation: string }>("/targets/resolve?name=orion%20nebula", owner.token);
    const m31 = await api<{ ra: number }>("/targets/resolve?name=M31", owner.token);

    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, "observations/new");
    await stepHeading(page, "Step 1 of 5: Observation").waitFor(WAIT);

    // The only project and the only observatory are chosen from the start.
    await expect.poll(() => page.getByLabel("Project").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text)).toBe(`Survey ${tag}`);
    await expect.poll(() => page.getByLabel("Observatory").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text)).toBe(`Dome ${tag}`);
    // Step 1: Next on an empty step refuses, says why under each field and puts focus on the first.
    await page.getByRole("button", { name: "Next" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Name");
    expect(await descriptionOf(page.getByLabel("Name", { exact: true }))).toBe("Name must not be empty.");
    await page.keyboard.type(`Nebulae ${tag}`);
    expect(await descriptionOf(page.getByLabel("Name", { exact: true }))).toBe("");
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Project");
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Observatory");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 2: focus is on the new step's heading; the next Tab reaches the target's name.
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Target name");
    const name = page.getByRole("combobox", { name: "Target name" });
    const suggestions = page.getByRole("listbox");
    await page.keyboard.type("M 3");
    await suggestions.getByRole("option").first().waitFor(WAIT);
    expect(await name.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    await suggestions.waitFor({ state: "hidden", ...WAIT });
    expect(await name.inputValue()).toBe("M 3");
    await retype(page, "orion neb");
    await suggestions.getByRole("option", { name: /Orion Nebula/ }).waitFor(WAIT);
    // ↓ goes through the suggestions (aria-activedescendant follows) until the Orion Nebula; Enter picks it.
    for (let press = 0; press < 20; press += 1) {
      await page.keyboard.press("ArrowDown");
      const active = await name.getAttribute("aria-activedescendant");
      if (active && (await page.locator(`[id="${active}"]`).innerText()).includes("Orion Nebula")) break;
    }
    await page.keyboard.press("Enter");
    await suggestions.waitFor({ state: "hidden", ...WAIT });
    expect(await name.inputValue()).toBe(orion.name);
    expect(await descriptionOf(name)).toContain(`Position of ${orion.designation}`);
    const ra = page.getByLabel("Right ascension (RA)");
    const dec = page.getByLabel("Declination (Dec)");
    // Filled from the catalog, and read back in degrees too.
    expect(await raDegrees(ra)).toBeCloseTo(orion.ra, 4);
    expect(await descriptionOf(ra)).toMatch(/^\d\dh \d\dm \d\d\.\d\ds = \d+\.\d{6}°$/);
    expect(await dec.inputValue()).not.toBe("");

    // A right ascension past 24h: the API's sentence under the field at once, and Next refuses, back on the field.
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Right ascension (RA)");
    await retype(page, "25h 10m");
    await expect.poll(() => descriptionOf(ra)).toBe("RA (target 1) must be less than 24h.");
    expect(await ra.getAttribute("aria-invalid")).toBe("true");
    await page.keyboard.press("Tab");
    await tabTo(page, "Exposure seconds");
    await retype(page, "2");
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Right ascension (RA)");
    // Fixed in the sexagesimal form with colons; shown back in both forms.
    await retype(page, "5:35:17.3");
    await expect.poll(() => descriptionOf(ra)).toBe("05h 35m 17.30s = 83.822083°");
    expect(await ra.getAttribute("aria-invalid")).toBeNull();

    // A second target by name alone: leaving the name field resolves it and fills its position.
    await tabTo(page, "Add target");
    await page.keyboard.press("Enter");
    const second = page.getByRole("combobox", { name: "Target name" }).nth(1);
    await expect.poll(() => isFocused(second)).toBe(true);
    await page.keyboard.type("m31");
    await page.keyboard.press("Tab");
    const secondRa = page.getByLabel("Right ascension (RA)").nth(1);
    await expect.poll(() => secondRa.inputValue()).not.toBe("");
    expect(await raDegrees(secondRa)).toBeCloseTo(m31.ra, 4);
    expect(await second.inputValue()).toBe("m31");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 3: the fixed-time type brings its window (and only it); an end before the start is refused under the end.
    await stepHeading(page, "Step 3 of 5: Scheduling").waitFor(WAIT);
    expect(await page.getByLabel("Window start").count()).toBe(0);
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByRole("radio", { name: "Flexible" }))).toBe(true);
    await page.keyboard.press("ArrowDown");
    expect(await page.getByRole("radio", { name: "Fixed time" }).isChecked()).toBe(true);
    const start = page.getByLabel("Window start");
    const end = page.getByLabel("Window end");
    await start.fill("2031-01-02T22:00");
    await end.fill("2031-01-02T21:00");
    await expect.poll(() => descriptionOf(end)).toBe("Window end must be after the window start. UTC");
    expect(await start.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Next" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Window end");
    await end.fill("2031-01-03T02:00");
    await expect.poll(() => end.getAttribute("aria-invalid")).toBeNull();
    // Monitoring shows its cadence's place instead of the window; back to fixed time.
    await page.getByRole("radio", { name: "Fixed time" }).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.getByRole("heading", { name: "Cadence" }).waitFor(WAIT);
    expect(await page.getByLabel("Window start").count()).toBe(0);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    expect(await page.getByLabel("Window end").inputValue()).toBe("2031-01-03T02:00");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 4: notifications as they are; step 5: the review, then Submit.
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");
    await stepHeading(page, "Step 5 of 5: Review").waitFor(WAIT);
    const targets = page.getByRole("region", { name: "Targets" });
    await targets.getByText(orion.name, { exact: true }).waitFor(WAIT);
    await targets.getByText("RA 05h 35m 17.30s (83.822083°)").first().waitFor(WAIT);
    await page.getByRole("region", { name: "Scheduling" }).getByText("Fixed time", { exact: true }).waitFor(WAIT);
    await tabTo(page, "Submit observation");
    await page.keyboard.press("Enter");

    // The observation's page, with both targets.
    await page.getByRole("heading", { level: 1, name: `Nebulae ${tag}` }).waitFor(WAIT);
    // Each is named in its target card and in its line of the progress table.
    await page.getByText(orion.name, { exact: true }).first().waitFor(WAIT);
    await page.getByText("m31", { exact: true }).first().waitFor(WAIT);
    const id = page.url().split("/").pop()!;
    const stored = await api<{ type: string; targets: Array<{ name: string; ra: number; dec: number }>; fixedTimeStart: string; fixedTimeEnd: string }>(
      `/observations/${id}`,
      owner.token,
    );
    // Read on the observatory's clocks: UTC, as it has no location.
    expect(stored).toMatchObject({ type: "fixed_time", fixedTimeStart: "2031-01-02T22:00:00.000Z", fixedTimeEnd: "2031-01-03T02:00:00.000Z" });
    expect(stored.targets.map((target) => target.name)).toEqual([orion.name, "m31"]);
    expect(stored.targets[0]!.ra).toBeCloseTo(83.822083, 5);
    expect(stored.targets[0]!.dec).toBeCloseTo(orion.dec, 4);
    expect(stored.targets[1]!.ra).toBeCloseTo(m31.ra, 4);
  });
});
