import { describe, expect, it } from "vitest";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const ADMIN = { email: "interface-admin@example.com", password: "interface admin password" };
const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
const { pages } = suite;
const focusedName = (page: import("playwright-core").Page) =>
  page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim() ?? "");

describe("web app: dialogs, titles, menus and hints", { timeout: 60_000 }, () => {
  it("a dialog opens on its first field and gives focus back to its button when it closes; every page names itself in the title", async () => {
    const page = await pages.signIn("admin", ADMIN);
    await expect.poll(() => page.title()).toBe("Dashboard · Meridian");
    await page.goto(appUrl(suite.server(), "organizations"));
    await expect.poll(() => page.title()).toBe("Organizations · Meridian");
    const opener = page.getByRole("main").getByRole("button", { name: "New organization" }).first();
    await opener.click();
    const dialog = page.getByRole("dialog", { name: "Create organization" });
    await dialog.waitFor(WAIT);
    await expect.poll(() => dialog.getByLabel("Name", { exact: true }).evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...WAIT });
    await expect.poll(() => opener.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.goto(appUrl(suite.server(), "no-such-page"));
    await expect.poll(() => page.title()).toBe("Page not found · Meridian");
  });

  it("the account menu works with the arrow keys, Home, End and Escape", async () => {
    const page = await pages.signIn("admin", ADMIN);
    const button = page.getByRole("button", { name: "Account menu" });
    await button.focus();
    await page.keyboard.press("ArrowDown");
    const menu = page.getByRole("menu", { name: "Account" });
    await menu.waitFor(WAIT);
    await expect.poll(() => focusedName(page)).toContain("Profile");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focusedName(page)).toContain("Security");
    await page.keyboard.press("End");
    await expect.poll(() => focusedName(page)).toContain("Sign out");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focusedName(page)).toContain("Profile");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => focusedName(page)).toContain("Sign out");
    await page.keyboard.press("Home");
    await expect.poll(() => focusedName(page)).toContain("Profile");
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached", ...WAIT });
    await expect.poll(() => button.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await menu.waitFor(WAIT);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Security", level: 1 }).waitFor(WAIT);
  });

  it("the announcement dialog keeps Send in view on a laptop screen, names the time zone of its dates and explains email acknowledgment", async () => {
    const page = await pages.signIn("admin", ADMIN);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(appUrl(suite.server(), "announcements"));
    await page.getByRole("button", { name: "New system announcement" }).click();
    const dialog = page.getByRole("dialog", { name: "New system announcement" });
    await dialog.waitFor(WAIT);
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await dialog.getByLabel(`Starts (${zone})`).waitFor(WAIT);
    await dialog.getByLabel(`Expires (${zone})`).waitFor(WAIT);
    await dialog.getByText("recipients count as acknowledged once their email is sent").waitFor(WAIT);
    const send = dialog.getByRole("button", { name: /^Send/ });
    const box = await send.boundingBox();
    expect(box && box.y + box.height).toBeLessThanOrEqual(720);
  });

  it("the API keys page links to the API reference, which has a favicon", async () => {
    const page = await pages.signInAt("admin", ADMIN, "api-keys");
    const link = page.getByRole("link", { name: "API reference" });
    await expect.poll(() => link.getAttribute("href")).toBe("/api/docs");
    await link.click();
    await expect.poll(() => page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute("href"))).toBe("/api/docs/assets/favicon.svg");
  });
});
