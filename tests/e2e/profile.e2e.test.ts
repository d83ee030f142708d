import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server";
import { ensureWebBuilt, launchChromium, ONE_PIXEL_PNG } from "./support/browser";

const WAIT = { timeout: 15_000 };
const ADMIN = { email: "root@example.com", password: "admin password 1" };
const USER = { name: "Ada Lovelace", email: `ada-${Date.now()}@example.com`, password: "analytical engine" };

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let fixtures: string;
const pageErrors: string[] = [];

const app = (route = "") => `${server.url}/app/${route.replace(/^\//, "")}`;
const pathOf = (target: Page) => new URL(target.url()).pathname;
// React Router writes the app root as /app; the server redirects /app to /app/.
const DASHBOARD_PATH = /^\/app\/?$/;

async function signIn(target: Page, email: string, password: string) {
  await target.goto(app("login"));
  await target.getByLabel("Email").fill(email);
  await target.getByLabel("Password").fill(password);
  await target.getByRole("button", { name: "Sign in" }).click();
}

async function openAccountMenu(target: Page) {
  await target.getByRole("button", { name: "Account menu" }).click();
  await target.getByRole("menu").waitFor(WAIT);
}

const naturalWidth = (target: Page, alt: string) =>
  target.getByRole("img", { name: alt, exact: true }).evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));

beforeAll(async () => {
  const webDist = ensureWebBuilt();
  fixtures = await fs.mkdtemp(path.join(os.tmpdir(), "meridian-e2e-"));
  await fs.writeFile(path.join(fixtures, "pixel.png"), ONE_PIXEL_PNG);
  await fs.writeFile(path.join(fixtures, "notes.txt"), "definitely not an image\n");
  server = await startTestServer({ WEB_DIST_DIR: webDist, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  browser = await launchChromium();
}, 180_000);

/** Set once the account exists (the second test signs it up through the form). */
let signedUp = false;

// A fresh context per test, signed in once the account exists, so nothing a failed test left
// open (a menu, a dialog, a half-filled form) reaches the next one.
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => pageErrors.push(error.message));
  if (!signedUp) return;
  await signIn(page, USER.email, USER.password);
  // A test renames the account: any welcome will do.
  await page.getByRole("heading", { name: /^Welcome, / }).waitFor(WAIT);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (fixtures) await fs.rm(fixtures, { recursive: true, force: true });
});

// On a failure, show where the page was and what it said: a timeout alone tells little.
afterEach(async (test) => {
  if (test.task.result?.state === "fail" && page && !page.isClosed()) {
    const text = await page
      .locator("body")
      .innerText({ timeout: 2_000 })
      .catch(() => "(no page text)");
    console.error(`page at ${page.url()}:\n${text.slice(0, 2_000)}`);
  }
  await context?.close().catch(() => undefined);
});

describe("web app: account and profile", { timeout: 60_000 }, () => {
  it("sends signed-out visitors to the login page", async () => {
    await page.goto(app("profile"));
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    expect(pathOf(page)).toBe("/app/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/profile");
  });

  it("signs up through the form and lands on the dashboard", async () => {
    await page.goto(app("profile"));
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Name").fill(USER.name);
    await page.getByLabel("Email").fill(USER.email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    // The server's field error is shown at the password field.
    await page.getByText("Must have at least 8 characters").waitFor(WAIT);
    await page.getByLabel("Password").fill(USER.password);
    await page.getByRole("button", { name: "Create account" }).click();
    // It was headed for the profile page before signing up.
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
    expect(pathOf(page)).toBe("/app/profile");
    await expect.poll(() => page.getByLabel("Name", { exact: true }).inputValue()).toBe(USER.name);
    signedUp = true;
  });

  it("does not show administration to a normal user", async () => {
    await page.goto(app());
    await page.getByRole("heading", { name: `Welcome, ${USER.name}` }).waitFor(WAIT);
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Observatories" }).waitFor(WAIT);
    await expect.poll(() => nav.getByRole("link", { name: "Profile" }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole("link", { name: "Administration" }).count()).toBe(0);
    // Typed in, the address shows a refusal instead of the page.
    await page.goto(app("admin"));
    await page.getByRole("heading", { name: "Server administrators only" }).waitFor(WAIT);
    await expect.poll(() => page.getByRole("heading", { name: "Administration" }).count()).toBe(0);
  });

  it("logs out, refuses a wrong password, and logs back in", async () => {
    await openAccountMenu(page);
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);
    expect(pathOf(page)).toBe("/app/login");
    expect((await context.cookies()).some((cookie) => cookie.name === "session")).toBe(false);

    await page.goto(app("api-keys"));
    await page.getByRole("heading", { name: "Sign in" }).waitFor(WAIT);

    await signIn(page, USER.email, "not the password");
    await page.getByRole("alert").filter({ hasText: "The email or password is not correct." }).waitFor(WAIT);

    await signIn(page, USER.email, USER.password);
    await page.getByRole("heading", { name: `Welcome, ${USER.name}` }).waitFor(WAIT);
    expect(pathOf(page)).toMatch(DASHBOARD_PATH);
  });

  it("saves the name and a notification switch, and they survive a reload", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Profile" }).click();
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);

    const systemEvents = page.getByLabel("System events");
    const wasOn = await systemEvents.isChecked();
    await systemEvents.click();
    await page.getByText("Notification preferences saved").waitFor(WAIT);
    await expect.poll(() => systemEvents.isChecked()).toBe(!wasOn);

    await page.getByLabel("Name", { exact: true }).fill("Ada King");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Profile saved").waitFor(WAIT);
    // The top bar reads the same identity.
    await page.getByRole("banner").getByText("Ada King").waitFor(WAIT);

    await page.reload();
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
    await expect.poll(() => page.getByLabel("Name", { exact: true }).inputValue(), WAIT).toBe("Ada King");
    await expect.poll(() => page.getByLabel("System events").isChecked()).toBe(!wasOn);
    await expect.poll(() => page.getByLabel("Observation events").isChecked()).toBe(true);
  });

  it("says plainly that this server has no Pushover token, on the profile and in the test result", async () => {
    await page.goto(app("profile"));
    const pushover = page.getByRole("region", { name: "Pushover" });
    // This server has no PUSH_APP_TOKEN.
    await pushover.getByText("This server has no Pushover application token (PUSH_APP_TOKEN), so nothing is sent to Pushover.").waitFor(WAIT);
    await pushover.getByLabel("User key").fill("k".repeat(10) + "abcdefghij1234567890");
    await pushover.getByRole("button", { name: "Save" }).click();
    await pushover.getByText("User key …7890 is set.").waitFor(WAIT);
    await pushover.getByText("This server has no Pushover application token (PUSH_APP_TOKEN)", { exact: false }).waitFor(WAIT);

    await page.getByRole("button", { name: "Send a test notification" }).click();
    const results = page.getByRole("list", { name: "Test results" });
    await results.getByText(/^Pushover: off \(This server has no Pushover application token \(PUSH_APP_TOKEN\)/).waitFor(WAIT);
  });

  it("previews and uploads an avatar, which then renders", async () => {
    await page.goto(app("profile"));
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
    await page.getByLabel("Choose an image").setInputFiles(path.join(fixtures, "pixel.png"));
    await expect.poll(() => naturalWidth(page, "New avatar preview"), WAIT).toBeGreaterThan(0);

    const uploaded = page.waitForResponse((response) => response.url().endsWith("/api/v1/user/avatar") && response.request().method() === "PUT");
    await page.getByRole("button", { name: "Upload avatar" }).click();
    expect((await uploaded).status()).toBe(200);
    await page.getByText("Your new avatar is saved.").waitFor(WAIT);

    const current = page.getByRole("img", { name: "Current avatar", exact: true });
    await current.waitFor(WAIT);
    await expect.poll(() => naturalWidth(page, "Current avatar"), WAIT).toBeGreaterThan(0);
    expect(await current.getAttribute("src")).toMatch(/^\/api\/v1\/users\/[^/]+\/avatar\?v=/);
    await expect.poll(() => page.getByRole("img", { name: "New avatar preview" }).count()).toBe(0);

    // The user menu shows the same picture, and it is still there after a reload.
    await page.reload();
    const menuAvatar = page.getByRole("button", { name: "Account menu" }).locator("img");
    await menuAvatar.waitFor(WAIT);
    await expect.poll(() => menuAvatar.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)), WAIT).toBeGreaterThan(0);
  });

  it("explains a refused (415) upload of a file that is not an image", async () => {
    await page.goto(app("profile"));
    await page.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
    await page.getByLabel("Choose an image").setInputFiles(path.join(fixtures, "notes.txt"));
    const refused = page.waitForResponse((response) => response.url().endsWith("/api/v1/user/avatar") && response.request().method() === "PUT");
    await page.getByRole("button", { name: "Upload avatar" }).click();
    expect((await refused).status()).toBe(415);
    await page.getByRole("alert").filter({ hasText: "That file is not a supported image. Use a JPG, PNG or GIF." }).waitFor(WAIT);
    // The avatar on file is unchanged.
    await expect.poll(() => naturalWidth(page, "Current avatar"), WAIT).toBeGreaterThan(0);
  });

  it("creates an API key shown once with a copy button, and revokes it after confirmation", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
    await page.getByText("No API keys yet").waitFor(WAIT);

    await page.getByLabel("Key name").fill("Telescope script");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "API key “Telescope script” created" }).waitFor(WAIT);
    const key = await page.getByLabel("New API key").inputValue();
    expect(key.length).toBeGreaterThan(20);
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(200);

    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor(WAIT);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // Once dismissed, the secret is gone from the page; the list shows only its prefix.
    await page.getByRole("button", { name: "I have saved it" }).click();
    const list = page.getByRole("list", { name: "API keys" });
    await list.getByText("Telescope script").waitFor(WAIT);
    await expect.poll(() => page.getByLabel("New API key").count()).toBe(0);
    expect(await page.locator("body").innerText()).not.toContain(key);

    const dialog = page.getByRole("dialog", { name: "Revoke API key?" });
    await page.getByRole("button", { name: "Revoke Telescope script" }).click();
    await dialog.waitFor(WAIT);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden", ...WAIT });
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(200);

    await page.getByRole("button", { name: "Revoke Telescope script" }).click();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No API keys yet").waitFor(WAIT);
    expect((await server.request("/api/v1/auth/me", { token: key })).status).toBe(401);
  });

  it("fits a 375px phone screen", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await context.storageState() });
    try {
      const small = await phone.newPage();
      await small.goto(app("profile"));
      await small.getByRole("heading", { name: "Profile", exact: true }).waitFor(WAIT);
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await small.getByRole("button", { name: "Open navigation" }).click();
      const drawer = small.getByRole("dialog", { name: "Navigation" });
      await drawer.getByRole("link", { name: "API keys" }).click();
      await small.getByRole("heading", { name: "API keys", exact: true }).waitFor(WAIT);
      await drawer.waitFor({ state: "hidden", ...WAIT });
      expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    } finally {
      await phone.close();
    }
  });

  it("shows administration to a server administrator", async () => {
    const adminContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const adminPage = await adminContext.newPage();
      await signIn(adminPage, ADMIN.email, ADMIN.password);
      const link = adminPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Administration" });
      await link.waitFor(WAIT);
      await link.click();
      await adminPage.getByRole("heading", { name: "Administration" }).waitFor(WAIT);
      expect(pathOf(adminPage)).toBe("/app/admin");
    } finally {
      await adminContext.close();
    }
  });

  it("raised no uncaught errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
