import { describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * What only a browser shows of the administration and account pages; what they show and call is in
 * their component tests (apps/web/src/pages/BackupsPage, JobsPage, ApiKeysPage, admin/, allocations/).
 * Navigation by the links, Escape on a native dialog, filters that survive a reload, and a phone's width.
 */
const ADMIN = { email: "admin-journey-e2e@example.com", password: "admin journey e2e password" };
const PHONE = { width: 390, height: 844 };
const DAY_MS = 24 * 60 * 60 * 1000;
const suite = browserSuite({ ...roomyLimits, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

describe("web app: the administration and account pages in a browser", { timeout: 120_000 }, () => {
  it("goes from the administration to its pages by their links, closes a dialog on Escape, and keeps the Jobs filters over a reload", async () => {
    const page = await suite.pages.signInAt("admin", ADMIN, "admin");
    await page.getByRole("link", { name: /Backup management/ }).click();
    await page.getByRole("heading", { name: "Backup management", level: 1 }).waitFor(WAIT);
    await page.getByRole("button", { name: "Delete old backups" }).press("Enter");
    const cleanup = page.getByRole("dialog");
    await cleanup.getByLabel("Days to keep").waitFor(WAIT);
    await page.keyboard.press("Escape");
    await cleanup.waitFor({ state: "detached", ...WAIT });

    await page.goBack();
    await page.getByRole("link", { name: /^Jobs/ }).first().click();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    await page.getByLabel("Status").selectOption("failed");
    await page.waitForURL(/status=failed/, WAIT);
    await page.reload();
    await page.getByRole("heading", { name: "Jobs", level: 1 }).waitFor(WAIT);
    expect(await page.getByLabel("Status").inputValue()).toBe("failed");
  });

  it("fits the API keys page to a phone (390×844): nothing runs off the screen, a long key name included", async () => {
    const account = await createAccount(suite.server());
    await suite.api("/api/v1/user/api-keys", account.token, {
      method: "POST",
      json: { name: "Old key with a rather long name for a phone", expiresAt: new Date(Date.now() + DAY_MS).toISOString() },
    });
    await suite.api("/api/v1/user/api-keys", account.token, { method: "POST", json: { name: "Lasting key" } });
    const page = await suite.pages.signInAt("phone", account, "api-keys", PHONE);
    await page.getByRole("list", { name: "API keys" }).getByText("Lasting key").waitFor(WAIT);
    const expires = page.getByLabel("Expires", { exact: true });
    await expires.selectOption("never");
    await page.getByText("Works until revoked", { exact: true }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    for (const control of [expires, page.getByRole("button", { name: "Create key" }), page.getByRole("button", { name: /^Revoke Old key/ })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
  });

  it("fits the Users page to a phone: a user is a card with its actions on the screen, and Escape closes its dialog", async () => {
    const account = await createAccount(suite.server(), { name: "Kim Keyboard" });
    const page = await suite.pages.signInAt("phone-admin", ADMIN, "admin/users", PHONE);
    await page.getByLabel("Search users").fill(account.email);
    const rows = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" });
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    const row = rows.filter({ hasText: account.email });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const box = await row.getByRole("button", { name: /^Make server admin/ }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    await row.getByRole("button", { name: "Disable Kim Keyboard" }).press("Enter");
    const dialog = page.getByRole("dialog", { name: "Disable account?" });
    await dialog.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);
  });
});
