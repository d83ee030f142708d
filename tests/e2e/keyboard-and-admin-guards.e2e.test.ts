import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, loginSession } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * Keyboard use of the phone navigation drawer and of the account menu, the user administration
 * changes the server always refuses (offered disabled, with the reason), and the administration
 * overview's entry for every administration page.
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

/** The text of what describes `control` to screen readers (aria-describedby). */
const descriptionOf = (control: Locator) =>
  control.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" "),
  );

/** What shows that an element has focus: its outline (when drawn) and its box shadow. */
const focusIndicator = (element: Locator) =>
  element.evaluate((target) => {
    const style = getComputedStyle(target);
    const drawn = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    return { outline: drawn ? `${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}` : "none", boxShadow: style.boxShadow };
  });

const userRow = (page: Page, email: string) => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: email });

describe("web app: keyboard use and administration guards", { timeout: 90_000 }, () => {
  it("keeps keyboard focus in the phone navigation drawer while it is open, and gives it back to its button", async () => {
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

    // Choosing a page closes it too.
    await openButton.click();
    await drawer.getByRole("link", { name: "Jobs" }).click();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    await drawer.waitFor({ state: "hidden", ...WAIT });
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

  it("does not offer disabling one's own account, and says why", async () => {
    const other = await createAccount(suite.server(), { name: "Otto Other" });
    const page = await suite.pages.signInAt("admin", ADMIN, "admin/users");
    const own = userRow(page, ADMIN.email);
    await own.getByText("(you)").waitFor(WAIT);
    const disableSelf = own.getByRole("button", { name: /^Disable / });
    expect(await disableSelf.isDisabled()).toBe(true);
    expect(await descriptionOf(disableSelf)).toBe("You cannot disable your own account.");
    expect(await own.getByText("You cannot disable your own account.").isVisible()).toBe(true);

    // Anyone else's account still can be.
    const disableOther = userRow(page, other.email).getByRole("button", { name: "Disable Otto Other" });
    expect(await disableOther.isDisabled()).toBe(false);
    expect(await disableOther.getAttribute("aria-describedby")).toBeNull();
  });

  it("does not offer removing the only enabled server admin, offers it once there is a second, and keeps focus when the server refuses", async () => {
    const colleague = await createAccount(suite.server(), { name: "Colleague Admin" });
    const page = await suite.pages.signInAt("admin", ADMIN, "admin/users");
    const own = userRow(page, ADMIN.email);
    await own.getByText("(you)").waitFor(WAIT);
    const removeSelf = own.getByRole("button", { name: /^Remove server admin/ });
    const reason = "You are the only enabled server admin: make someone else one first.";
    expect(await removeSelf.isDisabled()).toBe(true);
    expect(await descriptionOf(removeSelf)).toBe(reason);
    expect(await own.getByText(reason).isVisible()).toBe(true);
    // A search that shows only this row still knows there is no other admin: the server counts them.
    await page.getByLabel("Search users").fill(ADMIN.email);
    await expect.poll(() => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" }).count()).toBe(1);
    expect(await removeSelf.isDisabled()).toBe(true);
    await page.getByLabel("Search users").fill("");
    await expect.poll(() => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" }).count()).toBeGreaterThan(1);

    const colleagueRow = userRow(page, colleague.email);
    await colleagueRow.getByRole("button", { name: "Make server admin: Colleague Admin" }).click();
    await page.getByRole("dialog", { name: "Make server admin?" }).getByRole("button", { name: "Make server admin" }).click();
    await colleagueRow.getByText("Server admin", { exact: true }).waitFor(WAIT);
    await expect.poll(() => removeSelf.isDisabled()).toBe(false);
    expect(await removeSelf.getAttribute("aria-describedby")).toBeNull();
    expect(await own.getByText(reason).count()).toBe(0);

    // The colleague loses the role behind this page's back, so the server refuses what the page still offers.
    await removeSelf.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Remove server admin?" });
    await dialog.waitFor(WAIT);
    const { token } = await loginSession(suite.server(), ADMIN);
    await suite.api(`/api/v1/admin/users/${colleague.id}`, token, { method: "PUT", json: { roles: [] } });
    await dialog.getByRole("button", { name: "Remove server admin" }).click();
    await dialog.getByRole("alert").filter({ hasText: "without an enabled server administrator" }).waitFor(WAIT);
    await expect.poll(() => focusRelativeTo(dialog)).toBe("inside: Cancel");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => focusedName(page)).toBe(await removeSelf.getAttribute("aria-label"));
  });

  it("lists every administration page of the navigation on the administration overview, Jobs among them", async () => {
    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    const sections = page.getByRole("list", { name: "Administration sections" });
    await sections.getByRole("link").first().waitFor(WAIT);
    const hrefs = (links: Locator) => links.evaluateAll((elements) => elements.map((element) => element.getAttribute("href")).sort());
    const navigation = page.getByRole("navigation", { name: "Main" }).locator('a[href^="/app/admin/"]');
    expect(await hrefs(sections.getByRole("link"))).toEqual(await hrefs(navigation));

    await sections.getByRole("link", { name: /^Jobs/ }).click();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe("/app/admin/jobs");
  });
});
