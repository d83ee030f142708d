import type { Browser, BrowserContext, Page } from "playwright-core";
import type { TestServer } from "../../support/test-server";

/** How long a step may take before the test fails: generous, since CI machines are shared. */
export const WAIT = { timeout: 15_000 };

/** A URL of the SPA on `server`, e.g. appUrl(server, "organizations"). */
export const appUrl = (server: TestServer, route = "") => `${server.url}/app/${route.replace(/^\//, "")}`;

/** Signs in through the login page and waits for the dashboard (it renders even behind the blocking announcements modal). */
export async function signIn(page: Page, server: TestServer, email: string, password: string) {
  await page.goto(appUrl(server, "login"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: /^Welcome/ }).waitFor(WAIT);
}

/** A fresh browser context, signed in; page errors are collected into `pageErrors`. */
export async function newSignedInPage(options: { browser: Browser; server: TestServer; email: string; password: string; pageErrors: string[] }): Promise<[BrowserContext, Page]> {
  const context = await options.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => options.pageErrors.push(error.message));
  await signIn(page, options.server, options.email, options.password);
  return [context, page];
}
