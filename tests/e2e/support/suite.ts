import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { startTestServer, type TestServer } from "../../support/test-server";
import { ensureWebBuilt, launchChromium } from "./browser";
import { testPages } from "./session";

/**
 * The harness of a browser test file: one server (with `env`) and one Chromium for the file,
 * fresh pages per test (closed after it, and reported when it failed), and no uncaught page
 * error by the end. Register further beforeAll hooks after calling it: they run after these.
 */
export function browserSuite(env: Record<string, string> = {}) {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  const pages = testPages(
    () => browser!,
    () => server!,
    pageErrors,
  );
  beforeAll(async () => {
    server = await startTestServer({ WEB_DIST_DIR: ensureWebBuilt(), ...env });
    browser = await launchChromium();
  }, 180_000);
  afterEach(async (context) => {
    if (context.task.result?.state === "fail") await pages.report();
    await pages.closeAll();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    expect(pageErrors).toEqual([]);
  });
  return {
    pages,
    pageErrors,
    server: () => server!,
    browser: () => browser!,
  };
}
