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
export async function newSignedInPage(options: {
  browser: Browser;
  server: TestServer;
  email: string;
  password: string;
  pageErrors: string[];
}): Promise<[BrowserContext, Page]> {
  const context = await options.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => options.pageErrors.push(error.message));
  await signIn(page, options.server, options.email, options.password);
  return [context, page];
}

/**
 * Pages a test opens, each in a fresh browser context: `closeAll` (in afterEach) closes them,
 * so a dialog or a half-done page of a failed test can never reach the next one. On a failure,
 * `report` prints where each page was and what it said.
 */
export function testPages(getBrowser: () => Browser, getServer: () => TestServer, pageErrors: string[]) {
  let open: Array<{ label: string; context: BrowserContext; page: Page }> = [];
  return {
    async signIn(label: string, account: { email: string; password: string }): Promise<Page> {
      const [context, page] = await newSignedInPage({
        browser: getBrowser(),
        server: getServer(),
        email: account.email,
        password: account.password,
        pageErrors,
      });
      open.push({ label, context, page });
      return page;
    },
    /** A fresh context that is not signed in, at `viewport`. */
    async signedOut(label: string, viewport: { width: number; height: number }): Promise<Page> {
      const context = await getBrowser().newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT.timeout);
      page.on("pageerror", (error) => pageErrors.push(error.message));
      open.push({ label, context, page });
      return page;
    },
    async report() {
      for (const { label, page } of open) {
        if (page.isClosed()) continue;
        const text = await page
          .locator("body")
          .innerText({ timeout: 2_000 })
          .catch(() => "(no page text)");
        console.error(`${label} page at ${page.url()}:\n${text.slice(0, 2_000)}`);
      }
    },
    async closeAll() {
      const closing = open;
      open = [];
      await Promise.all(closing.map(({ context }) => context.close().catch(() => undefined)));
    },
  };
}
