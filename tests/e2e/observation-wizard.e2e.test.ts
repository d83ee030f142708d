import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { signupUser, type TestServer } from "../support/test-server";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const suite = browserSuite();
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});

async function api<T>(pathname: string, token: string, json?: unknown): Promise<T> {
  const response = await server.request(pathname, { method: json === undefined ? "GET" : "POST", token, json });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The element that has focus, as the accessible name a person would hear (its label's text, or its own). */
const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return null;
    const label = element.id ? document.querySelector(`label[for="${CSS.escape(element.id)}"]`) : null;
    return (label?.textContent ?? element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

/** Presses Tab until the control labelled `label` has focus (at most 30 times), as a keyboard user would get there. */
async function tabTo(page: Page, label: string) {
  for (let press = 0; press < 30; press += 1) {
    if ((await focusedLabel(page)) === label) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached “${label}”; focus is on “${await focusedLabel(page)}”`);
}

/** Replaces what the focused text field holds, by keyboard. */
async function retype(page: Page, text: string) {
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text);
}

/** The text that describes a control (its message or hint), as assistive technology reads it with the control. */
const descriptionOf = (control: Locator) =>
  control.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" ")
      .trim(),
  );

const isFocused = (control: Locator) => control.evaluate((element) => element === document.activeElement);

/** The degrees of a right ascension field filled from the catalog (`00h 42m 44.35s`). */
async function raDegrees(control: Locator): Promise<number> {
  const text = await control.inputValue();
  const parts = /^(\d+)h (\d+)m ([\d.]+)s$/.exec(text);
  if (!parts) throw new Error(`not a filled-in right ascension: ${text}`);
  return (Number(parts[1]) + Number(parts[2]) / 60 + Number(parts[3]) / 3600) * 15;
}

const stepHeading = (page: Page, text: string) => page.getByRole("heading", { level: 2, name: text });

/** How far down the page's sticky top bar reaches, and the box of what has focus, as the screen shows them. */
const topBarAndFocus = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement!.getBoundingClientRect();
    return { topBar: document.querySelector("header.sticky")!.getBoundingClientRect().bottom, focused: { top: focused.top, bottom: focused.bottom } };
  });

describe("the submission wizard at phone size", { timeout: 120_000 }, () => {
  it("shows what blocks Next below the top bar with the first field in error, and asks a time-based observation for a bound", async () => {
    const phone = { width: 390, height: 844 };
    const owner = await signupUser(server, { name: "Pia Phone" });
    const tag = randomBytes(3).toString("hex");
    await api("/observatories", owner.token, { name: `Dome ${tag}` });
    await api("/projects", owner.token, { name: `Survey ${tag}` });
    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, "observations/new", phone);
    await stepHeading(page, "Step 1 of 5: Observation").waitFor(WAIT);
    await page.getByLabel("Name", { exact: true }).fill(`Phone ${tag}`);
    await page.getByLabel("Project").selectOption({ label: `Survey ${tag}` });
    await page.getByLabel("Observatory").selectOption({ label: `Dome ${tag}` });
    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);

    // Next on the empty targets: the count of what blocks it and the first field in error both on screen, neither under the top bar.
    await page.getByRole("button", { name: "Next" }).click();
    const blocking = page.getByText(/fields? needs? a change before you can go on\./);
    await blocking.waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Target name");
    const { topBar, focused } = await topBarAndFocus(page);
    const count = (await blocking.boundingBox())!;
    expect(count.y).toBeGreaterThanOrEqual(topBar);
    expect(count.y + count.height).toBeLessThanOrEqual(phone.height);
    expect(focused.top).toBeGreaterThanOrEqual(topBar);
    expect(focused.bottom).toBeLessThanOrEqual(phone.height);

    const name = page.getByRole("combobox", { name: "Target name" });
    await name.fill("m31");
    await name.press("Tab");
    await expect.poll(() => page.getByLabel("Right ascension (RA)").inputValue()).not.toBe("");
    await page.getByLabel("Exposure seconds").fill("2");
    await page.getByRole("button", { name: "Next" }).click();

    // A time-based observation with neither bound would be a flexible one: refused at its start, until it has an end.
    await stepHeading(page, "Step 3 of 5: Scheduling").waitFor(WAIT);
    await page.getByRole("radio", { name: "Time based" }).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Window start");
    // The message, then the zone the time is typed in, named beside the field (the observatory's: UTC, as it has no location).
    expect(await descriptionOf(page.getByLabel("Window start"))).toBe("A time-based observation needs a window start, a window end or both. UTC");
    await page.getByLabel("Window end").fill("2031-01-03T02:00");
    await expect.poll(() => page.getByLabel("Window start").getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Next" }).click();
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);

    // The step list goes back to any step shown before, and forward again to the furthest, never beyond it.
    const stepList = page.getByRole("list", { name: "Steps" });
    expect(await stepList.getByRole("button").allTextContents()).toEqual(["1. Observation", "2. Targets", "3. Scheduling"]);
    expect(await stepList.locator('[aria-current="step"]').textContent()).toBe("4. Notifications");
    await stepList.getByRole("button", { name: "1. Observation" }).focus();
    await page.keyboard.press("Enter");
    const first = stepHeading(page, "Step 1 of 5: Observation");
    await first.waitFor(WAIT);
    await expect.poll(() => isFocused(first)).toBe(true);
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe(`Phone ${tag}`);
    await stepList.getByRole("button", { name: "4. Notifications" }).focus();
    await page.keyboard.press("Enter");
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);
    expect(await stepList.getByRole("button", { name: "5. Review" }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
  });
});

describe("the submission wizard, by keyboard", { timeout: 120_000 }, () => {
  it("resolves target names from the catalog, checks each field as it is typed, refuses Next until the step is right, and submits", async () => {
    const owner = await signupUser(server, { name: "Wanda Wizard" });
    const tag = randomBytes(3).toString("hex");
    await api("/observatories", owner.token, { name: `Dome ${tag}` });
    await api("/projects", owner.token, { name: `Survey ${tag}` });
    const orion = await api<{ name: string; ra: number; dec: number; designation: string }>("/targets/resolve?name=orion%20nebula", owner.token);
    const m31 = await api<{ ra: number }>("/targets/resolve?name=M31", owner.token);

    const page = await suite.pages.signInAt(owner.user.name, { email: owner.user.email, password: owner.password }, "observations/new");
    await stepHeading(page, "Step 1 of 5: Observation").waitFor(WAIT);

    // The only project and the only observatory are chosen from the start.
    await expect.poll(() => page.getByLabel("Project").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text)).toBe(`Survey ${tag}`);
    await expect.poll(() => page.getByLabel("Observatory").evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text)).toBe(`Dome ${tag}`);
    // Step 1: Next on an empty step refuses, says why under each field and puts focus on the first.
    await page.getByRole("button", { name: "Next" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Name");
    expect(await descriptionOf(page.getByLabel("Name", { exact: true }))).toBe("Name must not be empty.");
    await page.keyboard.type(`Nebulae ${tag}`);
    expect(await descriptionOf(page.getByLabel("Name", { exact: true }))).toBe("");
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Project");
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Observatory");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 2: focus is on the new step's heading; the next Tab reaches the target's name.
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Target name");
    const name = page.getByRole("combobox", { name: "Target name" });
    const suggestions = page.getByRole("listbox");
    await page.keyboard.type("M 3");
    await suggestions.getByRole("option").first().waitFor(WAIT);
    expect(await name.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    await suggestions.waitFor({ state: "hidden", ...WAIT });
    expect(await name.inputValue()).toBe("M 3");
    await retype(page, "orion neb");
    await suggestions.getByRole("option", { name: /Orion Nebula/ }).waitFor(WAIT);
    // ↓ goes through the suggestions (aria-activedescendant follows) until the Orion Nebula; Enter picks it.
    for (let press = 0; press < 20; press += 1) {
      await page.keyboard.press("ArrowDown");
      const active = await name.getAttribute("aria-activedescendant");
      if (active && (await page.locator(`[id="${active}"]`).innerText()).includes("Orion Nebula")) break;
    }
    await page.keyboard.press("Enter");
    await suggestions.waitFor({ state: "hidden", ...WAIT });
    expect(await name.inputValue()).toBe(orion.name);
    expect(await descriptionOf(name)).toContain(`Position of ${orion.designation}`);
    const ra = page.getByLabel("Right ascension (RA)");
    const dec = page.getByLabel("Declination (Dec)");
    // Filled from the catalog, and read back in degrees too.
    expect(await raDegrees(ra)).toBeCloseTo(orion.ra, 4);
    expect(await descriptionOf(ra)).toMatch(/^\d\dh \d\dm \d\d\.\d\ds = \d+\.\d{6}°$/);
    expect(await dec.inputValue()).not.toBe("");

    // A right ascension past 24h: the API's sentence under the field at once, and Next refuses, back on the field.
    await page.keyboard.press("Tab");
    expect(await focusedLabel(page)).toBe("Right ascension (RA)");
    await retype(page, "25h 10m");
    await expect.poll(() => descriptionOf(ra)).toBe("RA (target 1) must be less than 24h.");
    expect(await ra.getAttribute("aria-invalid")).toBe("true");
    await page.keyboard.press("Tab");
    await tabTo(page, "Exposure seconds");
    await retype(page, "2");
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    await stepHeading(page, "Step 2 of 5: Targets").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Right ascension (RA)");
    // Fixed in the sexagesimal form with colons; shown back in both forms.
    await retype(page, "5:35:17.3");
    await expect.poll(() => descriptionOf(ra)).toBe("05h 35m 17.30s = 83.822083°");
    expect(await ra.getAttribute("aria-invalid")).toBeNull();

    // A second target by name alone: leaving the name field resolves it and fills its position.
    await tabTo(page, "Add target");
    await page.keyboard.press("Enter");
    const second = page.getByRole("combobox", { name: "Target name" }).nth(1);
    await expect.poll(() => isFocused(second)).toBe(true);
    await page.keyboard.type("m31");
    await page.keyboard.press("Tab");
    const secondRa = page.getByLabel("Right ascension (RA)").nth(1);
    await expect.poll(() => secondRa.inputValue()).not.toBe("");
    expect(await raDegrees(secondRa)).toBeCloseTo(m31.ra, 4);
    expect(await second.inputValue()).toBe("m31");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 3: the fixed-time type brings its window (and only it); an end before the start is refused under the end.
    await stepHeading(page, "Step 3 of 5: Scheduling").waitFor(WAIT);
    expect(await page.getByLabel("Window start").count()).toBe(0);
    await page.keyboard.press("Tab");
    expect(await isFocused(page.getByRole("radio", { name: "Flexible" }))).toBe(true);
    await page.keyboard.press("ArrowDown");
    expect(await page.getByRole("radio", { name: "Fixed time" }).isChecked()).toBe(true);
    const start = page.getByLabel("Window start");
    const end = page.getByLabel("Window end");
    await start.fill("2031-01-02T22:00");
    await end.fill("2031-01-02T21:00");
    await expect.poll(() => descriptionOf(end)).toBe("Window end must be after the window start. UTC");
    expect(await start.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Next" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("One field needs a change before you can go on.").waitFor(WAIT);
    expect(await focusedLabel(page)).toBe("Window end");
    await end.fill("2031-01-03T02:00");
    await expect.poll(() => end.getAttribute("aria-invalid")).toBeNull();
    // Monitoring shows its cadence's place instead of the window; back to fixed time.
    await page.getByRole("radio", { name: "Fixed time" }).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.getByRole("heading", { name: "Cadence" }).waitFor(WAIT);
    expect(await page.getByLabel("Window start").count()).toBe(0);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    expect(await page.getByLabel("Window end").inputValue()).toBe("2031-01-03T02:00");
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");

    // Step 4: notifications as they are; step 5: the review, then Submit.
    await stepHeading(page, "Step 4 of 5: Notifications").waitFor(WAIT);
    await tabTo(page, "Next");
    await page.keyboard.press("Enter");
    await stepHeading(page, "Step 5 of 5: Review").waitFor(WAIT);
    const targets = page.getByRole("region", { name: "Targets" });
    await targets.getByText(orion.name, { exact: true }).waitFor(WAIT);
    await targets.getByText("RA 05h 35m 17.30s (83.822083°)").first().waitFor(WAIT);
    await page.getByRole("region", { name: "Scheduling" }).getByText("Fixed time", { exact: true }).waitFor(WAIT);
    await tabTo(page, "Submit observation");
    await page.keyboard.press("Enter");

    // The observation's page, with both targets.
    await page.getByRole("heading", { level: 1, name: `Nebulae ${tag}` }).waitFor(WAIT);
    // Each is named in its target card and in its line of the progress table.
    await page.getByText(orion.name, { exact: true }).first().waitFor(WAIT);
    await page.getByText("m31", { exact: true }).first().waitFor(WAIT);
    const id = page.url().split("/").pop()!;
    const stored = await api<{ type: string; targets: Array<{ name: string; ra: number; dec: number }>; fixedTimeStart: string; fixedTimeEnd: string }>(
      `/observations/${id}`,
      owner.token,
    );
    // Read on the observatory's clocks: UTC, as it has no location.
    expect(stored).toMatchObject({ type: "fixed_time", fixedTimeStart: "2031-01-02T22:00:00.000Z", fixedTimeEnd: "2031-01-03T02:00:00.000Z" });
    expect(stored.targets.map((target) => target.name)).toEqual([orion.name, "m31"]);
    expect(stored.targets[0]!.ra).toBeCloseTo(83.822083, 5);
    expect(stored.targets[0]!.dec).toBeCloseTo(orion.dec, 4);
    expect(stored.targets[1]!.ra).toBeCloseTo(m31.ra, 4);
  });
});
