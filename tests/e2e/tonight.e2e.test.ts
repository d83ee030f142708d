import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { controlServerClock } from "../support/test-clock";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

// The present moment's mark on the night in progress is in apps/web/src/observatories/tonight/TonightView.test.tsx.
const suite = browserSuite();
const LA_PALMA = { latitude: 28.7606, longitude: -17.8792, elevation: 2396 };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * 14:00 UTC on the coming day: before sunset at La Palma all year, so the whole night is ahead. The
 * server's clock and the browser's stand there (a fixed date far from today would outlive sessions).
 */
const NOON = Math.ceil((Date.now() - 14 * HOUR) / DAY) * DAY + 14 * HOUR;
const NIGHT = new Date(NOON).toISOString().slice(0, 10);
const dayName = (date: string) =>
  new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" })
    .format(new Date(`${date}T12:00:00Z`))
    .replace(",", "");
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

let server: TestServer;
let owner: Awaited<ReturnType<typeof signupUser>>;
let observatoryId: string;
const tag = randomBytes(3).toString("hex");
const names = { polar: `Polar field ${tag}`, cluster: `Northern cluster ${tag}`, south: `Far south ${tag}` };
const ids: Record<keyof typeof names, string> = { polar: "", cluster: "", south: "" };

async function api<T = { id: string }>(pathname: string, json?: unknown): Promise<T> {
  const response = await server.request(pathname, { method: json === undefined ? "GET" : "POST", token: owner.token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  server = suite.server();
  controlServerClock(server, NOON);
  owner = await signupUser(server, { name: "Tess Tonight" });
  observatoryId = (await api("/observatories", { name: `Roque ${tag}`, location: LA_PALMA })).id;
  const projectId = (await api("/projects", { name: `Nights ${tag}` })).id;
  const create = (name: string, priority: number, ra: number, dec: number, minAltitude: number, seconds: number) =>
    api("/observations", {
      name,
      projectId,
      observatoryId,
      priority,
      constraints: { minAltitude, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
      targets: [{ name, ra, dec, epoch: "J2000", exposures: [{ filter: "L", exposureSeconds: seconds, count: 2, binning: 1 }] }],
    });
  // Near the pole, so always between 24° and 34° high here: both fit any night; the far southern one never rises above 30°.
  ids.polar = (await create(names.polar, 7, 37.95, 89.26, 20, 600)).id;
  ids.cluster = (await create(names.cluster, 5, 12.1, 85.25, 15, 450)).id;
  ids.south = (await create(names.south, 9, 100, -75, 30, 300)).id;
});

/** The owner's page, its clock standing where the server's does. */
async function ownerPage(): Promise<Page> {
  const page = await suite.pages.signIn("owner", { email: owner.user.email, password: owner.password });
  await page.clock.setFixedTime(new Date(NOON));
  return page;
}

const TIME = String.raw`\d\d:\d\d`;

describe("web app: the Tonight view", { timeout: 120_000 }, () => {
  it("opens by keyboard, reads the night's bars and what it leaves out, follows a bar to the forecast, and keeps the picked night in the address", async () => {
    const page = await ownerPage();
    await page.goto(appUrl(server, `observatories/${observatoryId}`));
    await page.getByRole("tab", { name: "Overview" }).focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.getByRole("tab", { name: "Tonight" }).getAttribute("aria-selected")).toBe("true");
    expect(page.url()).toContain("tab=tonight");
    await page.getByRole("heading", { level: 2, name: `Night of ${dayName(NIGHT)}` }).waitFor(WAIT);

    // Each planned observation is a link named with its times, priority and owner; the higher priority runs first.
    const bar = (name: string, priority: number) =>
      page.getByRole("link", { name: new RegExp(`^${name}: planned (${TIME}) to (${TIME}) UTC(?:\\+1)?, priority ${priority}, by Tess Tonight$`) });
    await bar(names.polar, 7).waitFor(WAIT);
    const polarLabel = (await bar(names.polar, 7).getAttribute("aria-label"))!;
    const clusterLabel = (await bar(names.cluster, 5).getAttribute("aria-label"))!;
    const [, polarStart, polarEnd] = new RegExp(`planned (${TIME}) to (${TIME})`).exec(polarLabel)!;
    expect(new RegExp(`planned (${TIME})`).exec(clusterLabel)![1]).toBe(polarEnd);

    // What the night leaves out, in words.
    const unplanned = page.getByRole("list", { name: "Not planned this night" }).getByRole("listitem").filter({ hasText: names.south });
    // Its declination lies 104° from La Palma's latitude: it culminates below the horizon.
    await unplanned.getByText("Never rises above 30° from this site (highest −13°)").waitFor(WAIT);

    // The table view says the same in rows; the altitude chart's legend names the planned curves, then every one.
    await page.getByRole("switch", { name: "Table view" }).check();
    const row = page.getByRole("table", { name: "Planned observations" }).getByRole("row").filter({ hasText: names.polar });
    await row.getByText(polarStart!, { exact: true }).waitFor(WAIT);
    await page.getByRole("switch", { name: "Table view" }).uncheck();
    const legend = page.getByRole("list", { name: "Altitude curves" });
    await legend.getByText(`${names.polar}, minimum 20°`).waitFor(WAIT);
    // Each curve says which target it follows: the observation's only one here.
    await legend.getByRole("listitem").filter({ hasText: names.polar }).getByText(`· altitude of ${names.polar}`, { exact: true }).waitFor(WAIT);
    expect(await legend.getByText(names.south).count()).toBe(0);
    await page.getByRole("switch", { name: "Show unplanned targets too" }).check();
    await legend.getByText(`${names.south}, minimum 30°`).waitFor(WAIT);

    // By keyboard alone: Tab reaches the bar, Enter follows it to the observation, which expects to start when the bar says.
    await page.getByRole("combobox", { name: "Night" }).focus();
    for (let press = 0; press < 30; press += 1) {
      if ((await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")) === polarLabel) break;
      await page.keyboard.press("Tab");
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(polarLabel);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: names.polar }).waitFor(WAIT);
    expect(page.url()).toContain(`/observations/${ids.polar}`);
    await page
      .getByText(new RegExp(`^Expected to start around ${polarStart} \\(observatory time, UTC[^)]*\\), tonight; expected to end around ${polarEnd}\\.$`))
      .waitFor(WAIT);
    await page.getByText("The observatory is offline: this assumes it comes back.").waitFor(WAIT);

    // Another night from the picker: the address names it, and a reload stays on it.
    await page.goBack();
    await page.getByRole("heading", { level: 2, name: `Night of ${dayName(NIGHT)}` }).waitFor(WAIT);
    const later = shift(NIGHT, 2);
    await page.getByRole("combobox", { name: "Night" }).selectOption(later);
    await expect.poll(() => new URL(page.url()).searchParams.get("night")).toBe(later);
    await page.getByRole("heading", { level: 2, name: `Night of ${dayName(later)}` }).waitFor(WAIT);
    // Both fit the first night, so nothing is left for this one but the target that never rises.
    await page.getByText("Nothing planned for this night").waitFor(WAIT);
    await page.getByRole("list", { name: "Not planned this night" }).getByText(names.south).waitFor(WAIT);
    await page.reload();
    await page.getByRole("heading", { level: 2, name: `Night of ${dayName(later)}` }).waitFor(WAIT);
    await page.getByRole("button", { name: "Previous night" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("night")).toBe(shift(NIGHT, 1));
    await page.getByRole("button", { name: "Previous night" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("night")).toBeNull();
    await page.getByRole("heading", { level: 2, name: `Night of ${dayName(NIGHT)}` }).waitFor(WAIT);
  });

  it("says the altitude chart follows an observation's first target, and how many it has", async () => {
    const dome = (await api("/observatories", { name: `Roque two ${tag}`, location: LA_PALMA })).id;
    const projectId = (await api("/projects", { name: `Pairs ${tag}` })).id;
    const exposures = [{ filter: "L", exposureSeconds: 300, count: 2, binning: 1 }];
    const name = `Pole pair ${tag}`;
    await api("/observations", {
      name,
      projectId,
      observatoryId: dome,
      priority: 5,
      constraints: { minAltitude: 20, maxAirmass: null, moonDistance: null, twilight: "astronomical" },
      targets: [
        { name: `Pole field A ${tag}`, ra: 37.95, dec: 89.26, epoch: "J2000", exposures },
        { name: `Pole field B ${tag}`, ra: 12.1, dec: 85.25, epoch: "J2000", exposures },
        { name: `Pole field C ${tag}`, ra: 50, dec: 86, epoch: "J2000", exposures },
      ],
    });
    const page = await ownerPage();
    await page.goto(appUrl(server, `observatories/${dome}?tab=tonight`));
    const chart = page.getByRole("img", { name: "Altitude of each observation's first target over the night, against its minimum altitude" });
    await chart.waitFor(WAIT);
    const entry = page.getByRole("list", { name: "Altitude curves" }).getByRole("listitem").filter({ hasText: name });
    await entry.getByText(`· altitude of Pole field A ${tag}, the first of 3 targets`, { exact: true }).waitFor(WAIT);
    await entry.getByRole("link", { name: `${name}, minimum 20°` }).waitFor(WAIT);
    // The curve's own hover text says the same.
    expect(await chart.locator("title").allTextContents()).toEqual([`${name}: altitude of Pole field A ${tag}, the first of 3 targets`]);
  });

  it("says why an observation is not expected, and the queue gives every reason each one waits", async () => {
    const page = await ownerPage();
    await page.goto(appUrl(server, `observations/${ids.south}`));
    await page.getByText("Not expected to start in the coming week: never rises above 30° from this site (highest −13°).").waitFor(WAIT);

    await page.goto(appUrl(server, `observatories/${observatoryId}?tab=queue`));
    const reasons = page.getByRole("row").filter({ hasText: names.polar }).getByRole("list", { name: "Why it waits" });
    // In La Palma's time, as the Darkness card beside it, and named, whatever the browser's zone.
    await reasons.getByText(new RegExp(`^Waiting for darkness \\(astronomical\\) until ${TIME} UTC(?:\\+1)?$`)).waitFor(WAIT);
    await reasons.getByText("Waiting for the observatory's plugin to connect").waitFor(WAIT);
    const south = page.getByRole("row").filter({ hasText: names.south }).getByRole("list", { name: "Why it waits" });
    await south.getByText("Never rises above 30° from this site (highest −13°)").waitFor(WAIT);
  });
});
