import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import type { TestServer } from "../../support/test-server";

/** How long a step may take before the test fails: generous, since CI machines are shared. */
export const WAIT = { timeout: 15_000 };

/** A URL of the SPA on `server`, e.g. appUrl(server, "organizations"). */
export const appUrl = (server: TestServer, route = "") => `${server.url}/app/${route.replace(/^\//, "")}`;

/**
 * Counts the page's fetches (the SPA's only way to the API) from before its first script: a fetch
 * is done once its body has been read through, or it failed. Any other resource that finishes
 * loading (a lazy route's script, an image) counts as a change too.
 */
function countFetches() {
  const requests = { inFlight: 0, lastChange: performance.now() };
  Object.defineProperty(window, "__meridianFetches", { value: requests });
  const original = window.fetch.bind(window);
  const changed = (by: number) => {
    requests.inFlight += by;
    requests.lastChange = performance.now();
  };
  new PerformanceObserver(() => changed(0)).observe({ type: "resource" });
  window.fetch = (...args: Parameters<typeof fetch>) => {
    changed(1);
    const done = () => changed(-1);
    return original(...args).then(
      (response) => {
        response.clone().arrayBuffer().then(done, done);
        return response;
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
  };
}

/**
 * Waits until the page has had no fetch in flight and no load finished for `quietMs`, counted from
 * this call at the earliest: its data has arrived and been rendered (the page's single thread ran
 * whatever each answer queued before this check could run), and a query a render started just
 * before the call is seen. Playwright's `networkidle` waits 500 ms of silence on every page.
 */
export async function settled(page: Page, quietMs = 150) {
  const since = await page.evaluate(() => performance.now());
  await page.waitForFunction(
    ({ quiet, since }) => {
      const requests = (window as unknown as { __meridianFetches?: { inFlight: number; lastChange: number } }).__meridianFetches;
      if (!requests) throw new Error("settled() needs a page opened through testPages, which counts its fetches");
      return requests.inFlight === 0 && performance.now() - Math.max(requests.lastChange, since) >= quiet;
    },
    { quiet: quietMs, since },
    { polling: 50, ...WAIT },
  );
}

/** The viewport of a signed-in page unless a test asks for another. */
const DESKTOP = { width: 1280, height: 900 };

/** Signs in through the login page and waits for the dashboard (it renders even behind the blocking announcements modal). */
export async function signIn(page: Page, server: TestServer, email: string, password: string) {
  await page.goto(appUrl(server, "login"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: /^Welcome/ }).waitFor(WAIT);
}

/** What a signed-in context holds (the session cookie), to start another context signed in. */
type SavedSession = Awaited<ReturnType<BrowserContext["storageState"]>>;

interface Account {
  email: string;
  password: string;
}

/**
 * Pages a test opens, each in a fresh browser context: `closeAll` (in afterEach) closes them,
 * so a dialog or a half-done page of a failed test can never reach the next one. On a failure,
 * `report` prints where each page was and what it said.
 *
 * An account signs in through the login form once per file; later contexts of that account start
 * with its session cookie, as a returning visitor would, which spares each of them the login
 * page, its round trip and (with `signInAt`) the dashboard: a tenth of the two largest browser
 * files' time. A session that stopped working (signed out, password changed, account disabled)
 * sends the next sign-in through the form again.
 */
export function testPages(getBrowser: () => Browser, getServer: () => TestServer, pageErrors: string[]) {
  let open: Array<{ label: string; context: BrowserContext; page: Page }> = [];
  const sessions = new Map<string, SavedSession>();

  async function newPage(label: string, options: BrowserContextOptions): Promise<Page> {
    const context = await getBrowser().newContext(options);
    await context.addInitScript(countFetches);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT.timeout);
    page.on("pageerror", (error) => pageErrors.push(error.message));
    open.push({ label, context, page });
    return page;
  }

  /** The account's saved session, if the server still takes it. */
  async function savedSession(account: Account): Promise<SavedSession | undefined> {
    const saved = sessions.get(account.email);
    if (!saved) return undefined;
    const cookie = saved.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
    const response = await fetch(`${getServer().url}/api/v1/auth/me`, { headers: { cookie } });
    await response.body?.cancel();
    if (response.ok) return saved;
    sessions.delete(account.email);
    return undefined;
  }

  /** A fresh context signed in through the login form, left on the dashboard; its session is saved for later contexts. */
  async function signInWithForm(label: string, account: Account, viewport = DESKTOP) {
    const page = await newPage(label, { viewport });
    await signIn(page, getServer(), account.email, account.password);
    sessions.set(account.email, await page.context().storageState());
    return page;
  }

  /** A page of `account` in a fresh context: with its saved session, or signed in through the form (left on the dashboard). */
  async function signedInPage(label: string, account: Account, viewport: { width: number; height: number }) {
    const saved = await savedSession(account);
    if (saved) return { page: await newPage(label, { viewport, storageState: saved }), atDashboard: false };
    return { page: await signInWithForm(label, account, viewport), atDashboard: true };
  }

  return {
    /** A fresh context signed in as `account`, showing the dashboard. */
    async signIn(label: string, account: Account): Promise<Page> {
      const { page, atDashboard } = await signedInPage(label, account, DESKTOP);
      if (!atDashboard) {
        await page.goto(appUrl(getServer(), ""));
        await page.getByRole("heading", { name: /^Welcome/ }).waitFor(WAIT);
      }
      return page;
    },
    /** A fresh context signed in as `account`, opened at `route` (e.g. "admin/backups"); the caller waits for what it needs. */
    async signInAt(label: string, account: Account, route: string, viewport = DESKTOP): Promise<Page> {
      const { page } = await signedInPage(label, account, viewport);
      await page.goto(appUrl(getServer(), route));
      return page;
    },
    /** Through the login form even when the account has a saved session: for a test about signing in itself. */
    signInWithForm,
    /** A fresh context that is not signed in, at `viewport`. */
    signedOut: (label: string, viewport: { width: number; height: number }) => newPage(label, { viewport }),
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
