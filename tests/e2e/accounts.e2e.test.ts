import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccount, loginSession, roomyLimits, type Account } from "../support/auth-suite";
import { startSmtpCapture } from "../support/smtp-capture";
import { startTestServer, type TestServer } from "../support/test-server";
import { ensureWebBuilt, launchChromium } from "./support/browser";
import { appUrl, signIn, WAIT } from "./support/session";

const ADMIN = { email: "root-accounts@example.com", password: "admin password 1" };
const suffix = randomBytes(3).toString("hex");
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** The users page shows this many per page. */
const PAGE_SIZE = 25;

let server: TestServer;
let capture: Awaited<ReturnType<typeof startSmtpCapture>>;
let browser: Browser;
/** This test's browser contexts, closed after it: every test starts in a fresh one. */
let contexts: BrowserContext[] = [];
const pageErrors: string[] = [];

const app = (route = "") => appUrl(server, route);
const navLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
const statusOf = async (token: string) => (await server.request("/api/v1/auth/me", { token })).status;
const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

async function newPage(viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

async function signedInPage(account: { email: string; password: string }, viewport = DESKTOP) {
  const page = await newPage(viewport);
  await signIn(page, server, account.email, account.password);
  return page;
}

/** Logs in over the API with a recognizable User-Agent, so its row in the sessions list can be told apart. */
async function loginAs(account: Account, userAgent: string): Promise<string> {
  const response = await server.request("/api/v1/auth/login", {
    method: "POST",
    json: { email: account.email, password: account.password },
    headers: { "user-agent": userAgent },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

const loginStatus = async (email: string, password: string) =>
  (await server.request("/api/v1/auth/login", { method: "POST", json: { email, password } })).status;

/** The reset link mailed to `email`, as a path inside the SPA (the mail names the server's public address). */
async function resetLinkFor(email: string): Promise<string> {
  const messages = await capture.waitFor((all) => all.some((mail) => mail.to.includes(email)));
  const mail = messages.find((message) => message.to.includes(email))!;
  const match = /\/app\/(reset-password\?token=[^\s"<>)]+)/.exec(mail.text ?? "");
  expect(match, `no reset link in: ${mail.text}`).not.toBeNull();
  return match![1]!;
}

beforeAll(async () => {
  const webDist = ensureWebBuilt();
  capture = await startSmtpCapture();
  server = await startTestServer({ ...roomyLimits, WEB_DIST_DIR: webDist, SMTP_URL: capture.url, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await capture?.stop();
});

// On a failure, show where each page was and what it said; then close this test's contexts.
afterEach(async (context) => {
  if (context.task.result?.state === "fail") {
    for (const page of contexts.flatMap((browserContext) => browserContext.pages())) {
      const text = await page
        .locator("body")
        .innerText({ timeout: 2_000 })
        .catch(() => "(no page text)");
      console.error(`page at ${page.url()}:\n${text.slice(0, 2_000)}`);
    }
  }
  await Promise.all(contexts.map((browserContext) => browserContext.close()));
  contexts = [];
});

describe("web app: account security", { timeout: 90_000 }, () => {
  it("changes the password, refusing a wrong current one; the other session is signed out", async () => {
    const account = await createAccount(server, { name: `Pat Change ${suffix}` });
    const page = await signedInPage(account);
    await navLink(page, "Security").click();
    await page.getByRole("heading", { name: "Security", exact: true }).waitFor(WAIT);
    await expect.poll(() => page.title()).toBe("Security · Meridian");

    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password", { exact: true }).fill("a brand new password");
    await page.getByLabel("Confirm new password").fill("a different password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The two passwords do not match.").waitFor(WAIT);

    await page.getByLabel("Confirm new password").fill("a brand new password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("That is not your current password.").waitFor(WAIT);
    expect(await statusOf(account.token)).toBe(200);

    await page.getByLabel("Current password").fill(account.password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password was changed. Your other sessions were signed out.").first().waitFor(WAIT);
    await expect.poll(() => page.getByLabel("Current password").inputValue()).toBe("");

    // The session made at sign-up ends; this browser's goes on.
    expect(await statusOf(account.token)).toBe(401);
    await page.reload();
    await page.getByRole("heading", { name: "Security", exact: true }).waitFor(WAIT);
    expect(await loginStatus(account.email, account.password)).toBe(401);
    expect(await loginStatus(account.email, "a brand new password")).toBe(200);
  });

  it("lists the sessions, signs out one of them, then every other one", async () => {
    const account = await createAccount(server, { name: `Sam Sessions ${suffix}` });
    const curlToken = await loginAs(account, "curl/8.5.0");
    const page = await signedInPage(account);
    await page.goto(app("security"));
    const list = page.getByRole("list", { name: "Sessions" });
    const rows = list.getByRole("listitem");
    await expect.poll(() => rows.count(), WAIT).toBe(3);

    const current = rows.filter({ hasText: "This session" });
    await current.getByText("Chrome on Linux").waitFor(WAIT);
    await current.getByText(/Signed in .* from 127\.0\.0\.1/).waitFor(WAIT);
    await expect.poll(() => current.getByRole("button", { name: /^Sign out/ }).count()).toBe(0);

    const curlRow = rows.filter({ hasText: "curl" });
    await curlRow.getByRole("button", { name: /^Sign out/ }).click();
    const dialog = page.getByRole("dialog", { name: "Sign out this session?" });
    await dialog.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("curl was signed out.").first().waitFor(WAIT);
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    expect(await statusOf(curlToken)).toBe(401);
    expect(await statusOf(account.token)).toBe(200);

    await page.getByRole("button", { name: "Sign out other sessions" }).click();
    const confirm = page.getByRole("dialog", { name: "Sign out other sessions?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "hidden", ...WAIT });
    expect(await statusOf(account.token)).toBe(200);

    await page.getByRole("button", { name: "Sign out other sessions" }).click();
    await confirm.getByRole("button", { name: "Sign out other sessions" }).click();
    await page.getByText("Every other session was signed out.").first().waitFor(WAIT);
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    await expect.poll(() => page.getByRole("button", { name: "Sign out other sessions" }).isDisabled()).toBe(true);
    expect(await statusOf(account.token)).toBe(401);
  });

  it("resets a forgotten password through the emailed link, which works once", async () => {
    const account = await createAccount(server, { name: `Fay Forgot ${suffix}` });
    const page = await newPage();
    await page.goto(app("login"));
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor(WAIT);
    await expect.poll(() => page.title()).toBe("Forgot password · Meridian");

    // An unknown address gets the very answer a known one gets.
    const neutral = "If an account exists for that address, we sent a link";
    await page.getByLabel("Email").fill(`nobody-${suffix}@example.com`);
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    const answer = page.getByRole("status").filter({ hasText: neutral });
    await answer.waitFor(WAIT);
    const unknownAnswer = await answer.innerText();

    await page.reload();
    await page.getByLabel("Email").fill(account.email);
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    await answer.waitFor(WAIT);
    expect(await answer.innerText()).toBe(unknownAnswer);

    const link = await resetLinkFor(account.email);
    await page.goto(app(link));
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor(WAIT);
    await page.getByLabel("New password", { exact: true }).fill("remembered at last");
    await page.getByLabel("Confirm new password").fill("remembered at last");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    await page.getByText("Your password was changed. Sign in with the new one.").first().waitFor(WAIT);
    expect(await statusOf(account.token)).toBe(401);

    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill("remembered at last");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `Welcome, Fay Forgot ${suffix}` }).waitFor(WAIT);

    // Used once, the link is dead; the page offers a new one.
    const again = await newPage();
    await again.goto(app(link));
    await again.getByLabel("New password", { exact: true }).fill("a second new password");
    await again.getByLabel("Confirm new password").fill("a second new password");
    await again.getByRole("button", { name: "Set new password" }).click();
    await again.getByText("This link is invalid or has expired.").waitFor(WAIT);
    await again.getByRole("link", { name: "Request a new link" }).click();
    await again.getByRole("heading", { name: "Reset your password" }).waitFor(WAIT);
    expect(await loginStatus(account.email, "remembered at last")).toBe(200);
  });

  it("fits a phone: security and forgot-password pages, reachable by keyboard", async () => {
    const account = await createAccount(server, { name: `Phil Phone ${suffix}` });
    const page = await signedInPage(account, PHONE);
    await page.goto(app("security"));
    await page.getByRole("list", { name: "Sessions" }).getByText("This session").waitFor(WAIT);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);

    await page.getByLabel("Current password").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("autocomplete"))).toBe("new-password");

    const guest = await newPage(PHONE);
    await guest.goto(app("forgot-password"));
    await guest.getByRole("heading", { name: "Reset your password" }).waitFor(WAIT);
    expect(await pageWidth(guest)).toBeLessThanOrEqual(PHONE.width);
    await guest.getByLabel("Email").fill(account.email);
    await guest.keyboard.press("Enter");
    await guest.getByRole("status").filter({ hasText: "If an account exists for that address" }).waitFor(WAIT);
  });
});

describe("web app: sign-up", { timeout: 90_000 }, () => {
  it("shows an address that already has an account on the email field, with what to do, and keeps the typed values", async () => {
    const existing = await createAccount(server);
    const page = await newPage();
    await page.goto(app("signup"));
    await page.getByLabel("Name").fill("Second Try");
    await page.getByLabel("Email").fill(existing.email.toUpperCase());
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Create account" }).press("Enter");
    const email = page.getByLabel("Email");
    const message = page.getByText("An account with this email already exists: sign in, or reset its password.");
    await message.waitFor(WAIT);
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(await email.getAttribute("aria-describedby")).toContain(await message.getAttribute("id"));
    expect(await page.getByLabel("Name").inputValue()).toBe("Second Try");
    expect(await email.inputValue()).toBe(existing.email.toUpperCase());
  });
});

describe("web app: user administration", { timeout: 90_000 }, () => {
  it("is neither listed nor shown to a user who is not a server admin", async () => {
    const account = await createAccount(server, { name: `Nora Normal ${suffix}` });
    const page = await signedInPage(account);
    await navLink(page, "Security").waitFor(WAIT);
    await expect.poll(() => navLink(page, "Administration").count()).toBe(0);
    await expect.poll(() => navLink(page, "Users").count()).toBe(0);
    await page.goto(app("admin/users"));
    await page.getByRole("heading", { name: "Server administrators only" }).waitFor(WAIT);
    await expect.poll(() => page.getByRole("table", { name: "Users" }).count()).toBe(0);
  });

  it("searches and pages through users", async () => {
    const tag = `pager${suffix}`;
    for (let index = 0; index < PAGE_SIZE + 1; index += 1)
      await createAccount(server, { name: `Pager ${String(index).padStart(2, "0")}`, email: `${tag}-${index}@example.com` });
    const page = await signedInPage(ADMIN);
    await navLink(page, "Administration").click();
    await page.getByRole("heading", { name: "Administration", exact: true }).waitFor(WAIT);
    await page
      .getByRole("main")
      .getByRole("link", { name: /^Users/ })
      .click();
    await page.getByRole("heading", { name: "Users", exact: true }).waitFor(WAIT);
    await expect.poll(() => page.title()).toBe("Users · Meridian");

    const rows = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: tag });
    await page.getByLabel("Search users").fill(tag);
    await expect.poll(() => rows.count(), WAIT).toBe(PAGE_SIZE);
    await page.getByRole("button", { name: "Load more" }).click();
    await expect.poll(() => rows.count(), WAIT).toBe(PAGE_SIZE + 1);
    await page.getByRole("button", { name: "Load more" }).waitFor({ state: "detached", ...WAIT });

    await page.getByLabel("Search users").fill(`${tag}-7@`);
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    await rows.getByText("Pager 07").waitFor(WAIT);

    await page.getByLabel("Search users").fill(`no such user ${suffix}`);
    await page.getByText(`No user matches “no such user ${suffix}”`).waitFor(WAIT);
  });

  it("disables and enables an account, and grants and revokes server admin", async () => {
    const account = await createAccount(server, { name: `Dan Disable ${suffix}` });
    const page = await signedInPage(ADMIN);
    await page.goto(app("admin/users"));
    await page.getByLabel("Search users").fill(account.email);
    const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: account.email });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);

    await row.getByRole("button", { name: `Disable Dan Disable ${suffix}` }).click();
    const disable = page.getByRole("dialog", { name: "Disable account?" });
    await disable.getByRole("button", { name: "Cancel" }).click();
    await disable.waitFor({ state: "hidden", ...WAIT });
    expect(await statusOf(account.token)).toBe(200);

    await row.getByRole("button", { name: `Disable Dan Disable ${suffix}` }).click();
    await disable.getByRole("button", { name: "Disable account" }).click();
    await row.getByText("Disabled", { exact: true }).waitFor(WAIT);
    await page.getByText(`Dan Disable ${suffix} was disabled.`).first().waitFor(WAIT);
    expect(await statusOf(account.token)).toBe(401);

    // The sign-in page says why.
    const blocked = await newPage();
    await blocked.goto(app("login"));
    await blocked.getByLabel("Email").fill(account.email);
    await blocked.getByLabel("Password").fill(account.password);
    await blocked.getByRole("button", { name: "Sign in" }).click();
    await blocked.getByRole("alert").filter({ hasText: "This account is disabled." }).waitFor(WAIT);

    await row.getByRole("button", { name: `Enable Dan Disable ${suffix}` }).click();
    await page.getByRole("dialog", { name: "Enable account?" }).getByRole("button", { name: "Enable account" }).click();
    await row.getByText("Active", { exact: true }).waitFor(WAIT);
    const { token } = await loginSession(server, account);
    expect(await statusOf(token)).toBe(200);

    await row.getByRole("button", { name: /^Make server admin/ }).click();
    await page.getByRole("dialog", { name: "Make server admin?" }).getByRole("button", { name: "Make server admin" }).click();
    await row.getByText("Server admin", { exact: true }).waitFor(WAIT);
    const promoted = (await (await server.request("/api/v1/auth/me", { token })).json()) as { roles: string[] };
    expect(promoted.roles).toContain("serverAdmin");
    expect((await server.request("/api/v1/admin/users", { token })).status).toBe(200);

    await row.getByRole("button", { name: /^Remove server admin/ }).click();
    await page.getByRole("dialog", { name: "Remove server admin?" }).getByRole("button", { name: "Remove server admin" }).click();
    await row.getByRole("button", { name: /^Make server admin/ }).waitFor(WAIT);
    await expect.poll(() => row.getByText("Server admin", { exact: true }).count()).toBe(0);
    expect((await server.request("/api/v1/admin/users", { token })).status).toBe(403);
  });

  it("does not offer removing the last server admin, found by a search, and says why", async () => {
    const page = await signedInPage(ADMIN);
    await page.goto(app("admin/users"));
    await page.getByLabel("Search users").fill(ADMIN.email);
    const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: ADMIN.email });
    await row.getByText("(you)").waitFor(WAIT);
    // The server counts its enabled admins whatever the search shows (the refusal itself: keyboard-and-zones).
    const remove = row.getByRole("button", { name: /^Remove server admin/ });
    await expect.poll(() => remove.isDisabled()).toBe(true);
    await row.getByText("You are the only enabled server admin: make someone else one first.").waitFor(WAIT);
    await row.getByText("Server admin", { exact: true }).waitFor(WAIT);
    await navLink(page, "Administration").waitFor(WAIT);
  });

  it("fits a phone: users become cards, and the actions work by keyboard", async () => {
    const account = await createAccount(server, { name: `Kim Keyboard ${suffix}` });
    const page = await signedInPage(ADMIN, PHONE);
    await page.goto(app("admin/users"));
    const search = page.getByLabel("Search users");
    await search.fill(account.email);
    const row = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: account.email });
    await row.getByText("Active", { exact: true }).waitFor(WAIT);
    // The search has settled once this card is the only one: the keys below walk from the search into the first card.
    await expect.poll(() => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" }).count(), WAIT).toBe(1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    // The row is a card: its actions sit inside the screen, not past a horizontal scroll.
    const box = await row.getByRole("button", { name: /^Make server admin/ }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);

    // After the search comes the Show filter; the card's first stop is Edit, then Disable.
    await search.focus();
    await page.keyboard.press("Tab");
    expect(await page.getByLabel("Show").evaluate((select) => select === document.activeElement)).toBe(true);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await row.getByRole("button", { name: `Disable Kim Keyboard ${suffix}` }).evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Disable account?" });
    await dialog.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    expect(await statusOf(account.token)).toBe(200);
  });

  it("raised no uncaught errors in the pages", () => {
    expect(pageErrors).toEqual([]);
  });
});
