import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { ONE_PIXEL_PNG } from "./support/browser";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * What only a browser shows of one's own account pages; what they show and call is in their
 * component tests (apps/web/src/pages/SecurityPage, PasswordReset, SignupPage, ProfilePage; security/EmailCard).
 * A phone's width (one's organization and observatories too), real focus moving by Tab, a form sent by Enter,
 * an image the browser decodes, the navigation drawer, and the session cookie.
 */
const PHONE = { width: 390, height: 844 };
const SMALL_PHONE = { width: 375, height: 740 };
const suite = browserSuite({ ...roomyLimits });
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
/** The width the browser decoded an image at: 0 until it is loaded. */
const decodedWidth = (image: Locator) => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));

describe("web app: one's own account in a browser", { timeout: 120_000 }, () => {
  it("fits the security, forgot-password and email-confirmation pages to a phone (390×844), walks them by Tab and sends by Enter", async () => {
    const account = await createAccount(suite.server());
    const page = await suite.pages.signInAt("phone", account, "security", PHONE);
    await page.getByRole("list", { name: "Sessions" }).getByText("This session").waitFor(WAIT);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.getByLabel("Current password").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("autocomplete"))).toBe("new-password");

    const guest = await suite.pages.signedOut("guest", PHONE);
    await guest.goto(appUrl(suite.server(), "forgot-password"));
    await guest.getByRole("heading", { name: "Reset your password" }).waitFor(WAIT);
    expect(await pageWidth(guest)).toBeLessThanOrEqual(PHONE.width);
    await guest.getByLabel("Email").fill(account.email);
    await guest.keyboard.press("Enter");
    await guest.getByRole("status").filter({ hasText: "If an account exists for that address" }).waitFor(WAIT);

    // The page a mailed email-change link opens, signed out, on a phone (what it says: security/EmailCard.test.tsx).
    await guest.goto(appUrl(suite.server(), "confirm-email?token=not-a-mailed-token"));
    await guest.getByRole("heading", { name: "Confirm your email address" }).waitFor(WAIT);
    await guest.getByText("This link is invalid or has expired.", { exact: false }).waitFor(WAIT);
    expect(await pageWidth(guest)).toBeLessThanOrEqual(PHONE.width);
  });

  it("shows an uploaded avatar on the profile and menu, fits a 375px phone with its drawer and organizations; sign-out drops the cookie", async () => {
    const account = await createAccount(suite.server());
    const page = await suite.pages.signInAt("small-phone", account, "profile", SMALL_PHONE);
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
    expect(await pageWidth(page)).toBeLessThanOrEqual(SMALL_PHONE.width);
    await page.getByLabel("Choose an image").setInputFiles({ name: "pixel.png", mimeType: "image/png", buffer: ONE_PIXEL_PNG });
    await expect.poll(() => decodedWidth(page.getByRole("img", { name: "New avatar preview", exact: true })), WAIT).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Upload avatar" }).click();
    await page.getByText("Your new avatar is saved.").waitFor(WAIT);
    await expect.poll(() => decodedWidth(page.getByRole("img", { name: "Current avatar", exact: true })), WAIT).toBeGreaterThan(0);
    await page.reload();
    const menuAvatar = page.getByRole("button", { name: "Account menu" }).locator("img");
    await menuAvatar.waitFor(WAIT);
    await expect.poll(() => decodedWidth(menuAvatar), WAIT).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Open navigation" }).click();
    const drawer = page.getByRole("dialog", { name: "Navigation" });
    await drawer.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { name: "API keys", exact: true }).waitFor(WAIT);
    await drawer.waitFor({ state: "hidden", ...WAIT });
    expect(await pageWidth(page)).toBeLessThanOrEqual(SMALL_PHONE.width);

    // One's organization with its members' table, and the observatories it reaches, fit too (what they show:
    // apps/web/src/pages/OrganizationPage.test.tsx and ObservatoryPage.test.tsx).
    const tag = randomBytes(3).toString("hex");
    const json = { name: `Orion Society ${tag}`, shortName: `orion-${tag}`, type: "research_institute", contactEmail: account.email };
    const organization = await suite.api<{ id: string }>("/organizations", account.token, { method: "POST", json });
    const observatory = await suite.api<{ id: string }>("/observatories", account.token, { method: "POST", json: { name: `Dome One ${tag}` } });
    const permissions = { can_view: true, can_observe: true, can_operate: false, can_admin: false };
    await suite.api(`/observatories/${observatory.id}/members/organization`, account.token, {
      method: "POST",
      json: { organizationId: organization.id, permissions },
    });
    await page.goto(appUrl(suite.server(), `organizations/${organization.id}`));
    await page.getByRole("table", { name: "Organization members" }).getByRole("row").filter({ hasText: account.email }).waitFor(WAIT);
    expect(await pageWidth(page)).toBeLessThanOrEqual(SMALL_PHONE.width);
    await page.goto(appUrl(suite.server(), "observatories"));
    await page.getByRole("listitem", { name: `Dome One ${tag}` }).waitFor(WAIT);
    expect(await pageWidth(page)).toBeLessThanOrEqual(SMALL_PHONE.width);

    await page.getByRole("button", { name: "Account menu" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    expect((await page.context().cookies()).some((cookie) => cookie.name === "session")).toBe(false);
    await page.goto(appUrl(suite.server(), "api-keys"));
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get("next")).toBe("/api-keys");
  });
});
