import { describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * What only a browser shows of one's own account pages; what they show and call is in their
 * component tests (apps/web/src/pages/SecurityPage, PasswordReset, SignupPage; profile/, organizations/).
 * A phone's width, real focus moving by Tab, and a form sent by Enter.
 */
const PHONE = { width: 390, height: 844 };
const suite = browserSuite({ ...roomyLimits });
const pageWidth = (page: { evaluate: <T>(fn: () => T) => Promise<T> }) => page.evaluate(() => document.documentElement.scrollWidth);

describe("web app: one's own account in a browser", { timeout: 120_000 }, () => {
  it("fits the security and forgot-password pages to a phone (390×844), walks them by Tab and sends by Enter", async () => {
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
  });
});
