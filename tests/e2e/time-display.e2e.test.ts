import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, signIn, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";
import { fillFirstTarget, nextStep } from "./support/wizard";

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

/** The text that describes a control (its hint or message, and the zone named beside it), as assistive technology reads it. */
const descriptionOf = (control: Locator) =>
  control.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" ")
      .trim(),
  );

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

  it("in the wizard and the edit dialog: a window typed and shown on the observatory's clocks, named beside each field, sent in UTC", async () => {
    const { tag, owner, observatory, page, close } = await setUp();
    try {
      // A second observatory far west of the first: São Paulo is UTC-3 all year, Sydney UTC+11 in January.
      await api("/observatories", owner.token, { name: `Pico ${tag}`, location: { latitude: -23.55, longitude: -46.63, elevation: 760 } });
      await page.goto(appUrl(server, "observations/new"));
      await page.getByLabel("Name", { exact: true }).fill(`Window ${tag}`);
      await page.getByLabel("Project").selectOption({ label: `Survey ${tag}` });
      await page.getByLabel("Observatory").selectOption({ label: `Siding Spring ${tag}` });
      await nextStep(page, 2);
      await fillFirstTarget(page, { name: "Eta Carinae", ra: "10:45:03.6", dec: "-59:41:04", seconds: "30" });
      await nextStep(page, 3);
      await page.getByRole("radio", { name: /^Fixed time/ }).check();
      // Typed on Siding Spring's clocks, not the browser's (Santiago): each field names the zone at the time typed.
      await page.getByText("In the observatory's time zone, Australia/Sydney.").waitFor(WAIT);
      const start = page.getByLabel("Window start");
      const end = page.getByLabel("Window end");
      await start.fill("2031-01-02T21:00");
      await end.fill("2031-07-03T02:00");
      await expect.poll(() => descriptionOf(start)).toBe("Not before this time (required). UTC+11");
      await expect.poll(() => descriptionOf(end)).toBe("Not after this time (optional). UTC+10");
      await end.fill("2031-01-03T02:00");
      await expect.poll(() => descriptionOf(end)).toBe("Not after this time (optional). UTC+11");
      await nextStep(page, 4);
      await nextStep(page, 5);
      const review = page.getByRole("region", { name: "Scheduling" });
      await review.getByText("not before Jan 2, 2031, 21:00 UTC+11, not after Jan 3, 2031, 02:00 UTC+11").waitFor(WAIT);

      // Another observatory keeps the clock times typed, now on its clocks and named so.
      const stepList = page.getByRole("list", { name: "Steps" });
      await stepList.getByRole("button", { name: "1. Observation" }).click();
      await page.getByLabel("Observatory").selectOption({ label: `Pico ${tag}` });
      await stepList.getByRole("button", { name: "3. Scheduling" }).click();
      await page.getByText("In the observatory's time zone, America/Sao_Paulo.").waitFor(WAIT);
      expect(await start.inputValue()).toBe("2031-01-02T21:00");
      expect(await descriptionOf(start)).toBe("Not before this time (required). UTC-3");
      await stepList.getByRole("button", { name: "5. Review" }).click();
      await review.getByText("not before Jan 2, 2031, 21:00 UTC-3, not after Jan 3, 2031, 02:00 UTC-3").waitFor(WAIT);

      await stepList.getByRole("button", { name: "1. Observation" }).click();
      await page.getByLabel("Observatory").selectOption({ label: `Siding Spring ${tag}` });
      await stepList.getByRole("button", { name: "5. Review" }).click();
      await review.getByText("not before Jan 2, 2031, 21:00 UTC+11, not after Jan 3, 2031, 02:00 UTC+11").waitFor(WAIT);
      await page.getByRole("button", { name: "Submit observation" }).click();
      await page.getByRole("heading", { level: 1, name: `Window ${tag}` }).waitFor(WAIT);
      const id = page.url().split("/").pop()!;
      // 21:00 and 02:00 at Siding Spring (UTC+11) are 10:00 and 15:00 UTC.
      expect(await api(`/observations/${id}`, owner.token)).toMatchObject({
        observatoryId: observatory.id,
        fixedTimeStart: "2031-01-02T10:00:00.000Z",
        fixedTimeEnd: "2031-01-02T15:00:00.000Z",
      });
      await expect.poll(() => notBefore(page).textContent(), WAIT).toBe("Jan 2, 2031, 21:00 UTC+11");

      // The edit dialog shows the stored window on the same clocks, and reads a change on them.
      await page.getByRole("button", { name: "Edit", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Edit observation" });
      await dialog.getByText("In the observatory's time zone, Australia/Sydney.").waitFor(WAIT);
      expect(await dialog.getByLabel("Window start").inputValue()).toBe("2031-01-02T21:00");
      expect(await dialog.getByLabel("Window end").inputValue()).toBe("2031-01-03T02:00");
      expect(await descriptionOf(dialog.getByLabel("Window end"))).toBe("Not after this time (optional). UTC+11");
      await dialog.getByLabel("Window end").fill("2031-01-03T03:30");
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await dialog.waitFor({ state: "hidden", ...WAIT });
      await expect
        .poll(() => api<{ fixedTimeStart: string; fixedTimeEnd: string }>(`/observations/${id}`, owner.token), WAIT)
        .toMatchObject({ fixedTimeStart: "2031-01-02T10:00:00.000Z", fixedTimeEnd: "2031-01-02T16:30:00.000Z" });
    } finally {
      await close();
    }
  });

  it("in the wizard: a monitoring cadence checked as typed and sent, and the estimate on the review by the observatory's settings", async () => {
    const { tag, owner, observatory, page, close } = await setUp();
    try {
      await api(`/observatories/${observatory.id}`, owner.token, { settings: { slewSeconds: 60, readoutSeconds: 5 } }, "PUT");
      await page.goto(appUrl(server, "observations/new"));
      await page.getByLabel("Name", { exact: true }).fill(`Variable ${tag}`);
      await page.getByLabel("Project").selectOption({ label: `Survey ${tag}` });
      await page.getByLabel("Observatory").selectOption({ label: `Siding Spring ${tag}` });
      await page.getByRole("button", { name: "Next" }).click();
      // The position first: a name left with an empty position would be looked up in the catalog.
      await page.getByLabel("Right ascension (RA)").fill("9:32:14.6");
      await page.getByLabel("Declination (Dec)").fill("-62:47:20");
      await page.getByRole("combobox", { name: "Target name" }).fill("Mira-type variable");
      await page.keyboard.press("Escape");
      await page.getByLabel("Exposure seconds").fill("30");
      await page.getByLabel("Count", { exact: true }).fill("4");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("radio", { name: /^Monitoring/ }).check();
      const interval = page.getByLabel("Repeat every (minutes)");
      expect(await interval.inputValue()).toBe("60");
      await interval.fill("0");
      await page.getByText("Interval minutes must be at least 1.").waitFor(WAIT);
      await interval.fill("90");
      const until = page.getByLabel("Until");
      await until.fill("2031-03-01T06:00");
      await expect.poll(() => descriptionOf(until)).toBe("Optional; in the observatory's time zone, Australia/Sydney. UTC+11");
      await page.getByLabel("At most (runs)").fill("3");
      await expect.poll(() => interval.getAttribute("aria-invalid")).toBeNull();
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("button", { name: "Next" }).click();
      const review = page.getByRole("region", { name: "Scheduling" });
      await review.getByText("every 90 minutes, until Mar 1, 2031, 06:00 UTC+11, at most 3 runs").waitFor(WAIT);
      // 60 s slew + 4 × (30 s + 5 s readout) = 200 s.
      await page.getByRole("region", { name: "Estimate" }).getByText("3 min 20 s").waitFor(WAIT);
      await page.getByRole("button", { name: "Submit observation" }).click();
      await page.getByRole("heading", { level: 1, name: `Variable ${tag}` }).waitFor(WAIT);
      const id = page.url().split("/").pop()!;
      expect(await api(`/observations/${id}`, owner.token)).toMatchObject({
        type: "monitoring",
        // 06:00 at Siding Spring, still on summer time (UTC+11).
        monitoring: { intervalMinutes: 90, until: "2031-02-28T19:00:00.000Z", maxRuns: 3 },
        estimatedSeconds: 200,
      });
      await page.getByText("every 90 minutes").waitFor(WAIT);
    } finally {
      await close();
    }
  });
});
