import { ObservatorySimulator, type SimulatorOptions } from "@meridian/simulator";
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
  const simulators: ObservatorySimulator[] = [];
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
    for (const simulator of simulators) await simulator.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
    expect(pageErrors).toEqual([]);
  });
  /** A JSON call to the file's server as `token`; anything but 2xx throws with the answer. */
  async function api<T = unknown>(pathname: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
    const response = await server!.request(pathname, { method: init.method ?? "GET", token, json: init.json });
    const text = await response.text();
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }
  /** A connected observatory simulator on the file's server, closed with the file. */
  async function simulator(options: Omit<SimulatorOptions, "url">) {
    const started = new ObservatorySimulator({ url: server!.url, ...options });
    simulators.push(started);
    await started.connect();
    return started;
  }
  return {
    pages,
    pageErrors,
    api,
    simulator,
    server: () => server!,
    browser: () => browser!,
  };
}
