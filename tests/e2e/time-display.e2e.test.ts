import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, signIn, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// What only a browser shows: its own zone (Santiago) against the observatory's and UTC, by the profile's choice.
// The observatory's zone and timings in its settings, the wizard's and the edit dialog's zoned windows and a
// monitoring cadence are in component tests (observatories/EditObservatoryDialog.test.tsx,
// observations/wizard/NewObservationPage.test.tsx, observations/ObservationPage.test.tsx).
const suite = browserSuite();
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});

async function api<T>(pathname: string, token: string, json?: unknown, method = json === undefined ? "GET" : "POST"): Promise<T> {
  const response = await server.request(pathname, { method, token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const sidingSpring = { latitude: -31.2733, longitude: 149.0617, elevation: 1165 };

/** A user with an observatory at Siding Spring (Australia/Sydney), a project, and a page signed in from a browser in Santiago. */
async function setUp() {
  const tag = randomBytes(3).toString("hex");
  const owner = await signupUser(server, { name: `Tess ${tag}` });
  const observatory = await api<{ id: string; timeZone: string }>("/observatories", owner.token, { name: `Siding Spring ${tag}`, location: sidingSpring });
  const project = await api<{ id: string }>("/projects", owner.token, { name: `Survey ${tag}` });
  // A browser zone unlike the observatory's and UTC, so each choice shows another hour.
  const context = await suite.browser().newContext({ viewport: { width: 1280, height: 900 }, timezoneId: "America/Santiago", locale: "en-US" });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT.timeout);
  page.on("pageerror", (error) => suite.pageErrors.push(error.message));
  await signIn(page, server, owner.user.email, owner.password);
  return { tag, owner, observatory, project, page, close: () => context.close() };
}

/** The "Not before" time of the observation page's timing card. */
const notBefore = (page: Page) =>
  page
    .getByRole("term")
    .filter({ hasText: /^Not before$/ })
    .locator("xpath=following-sibling::dd[1]//time");

describe("times of an observatory", { timeout: 120_000 }, () => {
  it("show in the observatory's zone named by its UTC offset, UTC on hover; every page follows the profile's choice of UTC or the browser's", async () => {
    const { owner, observatory, project, page, close } = await setUp();
    try {
      expect(observatory.timeZone).toBe("Australia/Sydney");
      // 10:00 UTC on 2 January is 21:00 in Sydney (UTC+11 in its summer) and 07:00 in Santiago (UTC−3).
      const start = "2031-01-02T10:00:00.000Z";
      const observation = await api<{ id: string }>("/observations", owner.token, {
        name: "Eta Carinae",
        projectId: project.id,
        observatoryId: observatory.id,
        type: "fixed_time",
        fixedTimeStart: start,
        targets: [{ name: "Eta Carinae", ra: 161.265, dec: -59.685, exposures: [{ filter: "R", exposureSeconds: 60, count: 3, binning: 1 }] }],
      });

      // Every page reads the clock one way, 24 hours, even in a 12-hour locale (en-US): the observatory's
      // queue (its darkness), the same hours its Tonight tab's axes and bars use.
      await page.goto(appUrl(server, `observatories/${observatory.id}?tab=queue`));
      const darkness = page.getByRole("heading", { name: "Darkness" }).locator("xpath=ancestor::*[.//time][1]").locator("time");
      await expect.poll(() => darkness.count(), WAIT).toBe(2);
      for (const text of await darkness.allTextContents()) expect(text).toMatch(/, [0-2]\d:[0-5]\d UTC\+1[01]$/);
      await page.getByRole("tab", { name: "Tonight" }).click();
      const axis = page.getByRole("img", { name: /^Altitude of / });
      await axis.waitFor(WAIT);
      const hours = (await axis.locator("text").allTextContents()).filter((text) => text.includes(":"));
      expect(hours.length).toBeGreaterThan(0);
      for (const hour of hours) expect(hour).toMatch(/^[0-2]\d:00$/);

      await page.goto(appUrl(server, `observations/${observation.id}`));
      const time = notBefore(page);
      await expect.poll(() => time.textContent(), WAIT).toMatch(/^Jan 2, 2031, 21:00 UTC\+11$/);
      expect(await time.getAttribute("dateTime")).toBe(start);
      expect(await time.getAttribute("title")).toBe("2031-01-02 10:00 UTC");
      // The estimate: one 120 s slew, three 60 s exposures with a 10 s readout each.
      await page.getByText("5 min 30 s", { exact: true }).waitFor(WAIT);

      // The observations table: an observation's times in its observatory's zone, each naming it, the same way.
      await page.goto(appUrl(server, "observations"));
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Eta Carinae", exact: true }) });
      await expect.poll(() => row.locator("time").count(), WAIT).toBe(2);
      for (const text of await row.locator("time").allTextContents()) expect(text).toMatch(/ [0-2]\d:[0-5]\d UTC\+1[01]$/);

      // The profile's choice: UTC, saved at once.
      await page.goto(appUrl(server, "profile"));
      await page.getByRole("radio", { name: /^UTC/ }).check();
      await page.getByText("Time display saved").waitFor(WAIT);
      expect(await api<{ timeDisplay?: string }>("/api/v1/user/profile", owner.token)).toMatchObject({ timeDisplay: "utc" });
      await page.goto(appUrl(server, `observations/${observation.id}`));
      await expect.poll(() => notBefore(page).textContent(), WAIT).toMatch(/^Jan 2, 2031, 10:00 UTC$/);

      // The browser's zone, also after a reload.
      await page.goto(appUrl(server, "profile"));
      await page.getByRole("radio", { name: /^Your browser's time zone/ }).check();
      await page.getByText("Time display saved").waitFor(WAIT);
      await page.goto(appUrl(server, `observations/${observation.id}`));
      await page.reload();
      // Named too, as every time is: the browser's zone by its offset, the one form every page uses.
      await expect.poll(() => notBefore(page).textContent(), WAIT).toMatch(/^Jan 2, 2031, 07:00 UTC-3$/);
    } finally {
      await close();
    }
  });
});
