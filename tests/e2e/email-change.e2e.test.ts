import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { startSmtpCapture } from "../support/smtp-capture";
import { startTestServer, type TestServer } from "../support/test-server";
import { ensureWebBuilt, launchChromium } from "./support/browser";
import { appUrl, settled, signIn, testPages, WAIT } from "./support/session";

const PHONE = { width: 390, height: 844 };
const CONFIRM_SUBJECT = "Confirm your new Meridian email address";
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let browser: Browser;
const pageErrors: string[] = [];
const pages = testPages(
  () => browser,
  () => server,
  pageErrors,
);
// The mail capture must listen before the server starts, so this file has its own harness rather than browserSuite's.
beforeAll(async () => {
  capture = await startSmtpCapture();
  server = await startTestServer({ ...roomyLimits, WEB_DIST_DIR: ensureWebBuilt(), SMTP_URL: capture.url, MERIDIAN_ROLE: "all" });
  browser = await launchChromium();
}, 180_000);
afterEach(async (context) => {
  if (context.task.result?.state === "fail") await pages.report();
  await pages.closeAll();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await capture?.stop();
  expect(pageErrors).toEqual([]);
});
const suite = { server: () => server, pages };

const tag = () => randomBytes(3).toString("hex");
/** The confirmation link mailed to `email`, as a path inside the SPA (the mail names the server's public address). */
async function confirmLinkFor(email: string, count = 1): Promise<string> {
  const mine = (all: typeof capture.messages) => all.filter((mail) => mail.to.includes(email) && mail.subject === CONFIRM_SUBJECT);
  const mail = mine(await capture.waitFor((all) => mine(all).length >= count))[count - 1]!;
  const match = /\/app\/(confirm-email\?token=[^\s"<>)]+)/.exec(mail.text ?? "");
  expect(match, `no confirmation link in: ${mail.text}`).not.toBeNull();
  return match![1]!;
}

describe("web app: changing one's email address", { timeout: 120_000 }, () => {
  it("asks for a change on the Security page, opens the mailed link in another browser, and signs in with the new address", async () => {
    const account = await createAccount(suite.server(), { email: `old-${tag()}@example.com`, name: `Eve Email ${tag()}` });
    const newEmail = `new-${tag()}@example.org`;
    const page = await suite.pages.signInAt("owner", account, "security");
    const card = page.getByRole("form", { name: "Change email" });
    await card.getByText(account.email).waitFor(WAIT);

    // Keyboard only: type, Tab to the password, Enter submits. A wrong password is told at its field.
    await card.getByLabel("New email").focus();
    await page.keyboard.type(newEmail);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not my password");
    await page.keyboard.press("Enter");
    await card.getByText("That is not your current password.").waitFor(WAIT);
    await card.getByLabel("Your password").fill(account.password);
    await page.keyboard.press("Enter");
    // Shown, and read out by the live region beside it: the shown one is the last.
    await card.getByText(`We sent a link to ${newEmail}.`, { exact: false }).last().waitFor(WAIT);
    await card.getByText("Waiting for confirmation of").waitFor(WAIT);
    expect(await card.getByText(newEmail, { exact: true }).count()).toBeGreaterThan(0);

    // Opened signed out, in another browser: the link is the credential.
    const link = await confirmLinkFor(newEmail);
    const elsewhere = await suite.pages.signedOut("elsewhere", PHONE);
    await elsewhere.goto(appUrl(suite.server(), link));
    await elsewhere.getByRole("heading", { name: "Confirm your email address" }).waitFor(WAIT);
    await elsewhere.getByText(`Your email address is now ${newEmail}.`).waitFor(WAIT);
    expect(await elsewhere.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // Opened again, the link is used up.
    await elsewhere.reload();
    await elsewhere.getByText("This link is invalid or has expired.", { exact: false }).waitFor(WAIT);

    // The first browser, still signed in, shows the new address and nothing pending.
    await page.reload();
    await card.getByText(newEmail, { exact: true }).waitFor(WAIT);
    await settled(page);
    expect(await card.getByText("Waiting for confirmation of").count()).toBe(0);

    // The new address signs in, the old one no more.
    const fresh = await suite.pages.signedOut("fresh", { width: 1280, height: 900 });
    await fresh.goto(appUrl(suite.server(), "login"));
    await fresh.getByLabel("Email").fill(account.email);
    await fresh.getByLabel("Password").fill(account.password);
    await fresh.getByRole("button", { name: "Sign in" }).click();
    await fresh.getByRole("alert").waitFor(WAIT);
    await signIn(fresh, suite.server(), newEmail, account.password);
  });

  it("cancels a pending change with the keyboard; its link then says it is invalid", async () => {
    const account = await createAccount(suite.server(), { email: `cancel-${tag()}@example.com` });
    const newEmail = `never-${tag()}@example.org`;
    const page = await suite.pages.signInAt("canceller", account, "security");
    const card = page.getByRole("form", { name: "Change email" });
    await card.getByLabel("New email").fill(newEmail);
    await card.getByLabel("Your password").fill(account.password);
    await card.getByRole("button", { name: "Change email" }).click();
    const cancel = card.getByRole("button", { name: "Cancel the change" });
    await cancel.waitFor(WAIT);
    await cancel.focus();
    await page.keyboard.press("Enter");
    await card.getByText("The change was cancelled", { exact: false }).last().waitFor(WAIT);
    await cancel.waitFor({ state: "detached", ...WAIT });

    const elsewhere = await suite.pages.signedOut("cancelled link", PHONE);
    await elsewhere.goto(appUrl(suite.server(), await confirmLinkFor(newEmail)));
    await elsewhere.getByText("This link is invalid or has expired.", { exact: false }).waitFor(WAIT);
    expect((await suite.server().request("/api/v1/auth/login", { method: "POST", json: { email: account.email, password: account.password } })).status).toBe(
      200,
    );
  });
});
