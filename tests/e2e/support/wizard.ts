import type { Locator, Page } from "playwright-core";
import { WAIT } from "./session";

/** Next, then the step's heading: a field filled before the step is shown could land in the last step's field of the same name. */
export async function nextStep(page: Page, step: number, how: "click" | "keyboard" = "click") {
  const next = page.getByRole("button", { name: "Next" });
  await (how === "click" ? next.click() : next.press("Enter"));
  await page.getByRole("heading", { level: 2, name: new RegExp(`^Step ${step} of 5`) }).waitFor(WAIT);
}

/**
 * The first target on the Targets step: its coordinates first, then its name, so the catalog is not
 * asked to fill coordinates being typed (a name the catalog knows, left with RA and Dec empty, is resolved).
 */
export async function fillFirstTarget(page: Page, target: { name: string; ra: string; dec: string; seconds: string }) {
  await page.getByLabel("Right ascension (RA)").fill(target.ra);
  await page.getByLabel("Declination (Dec)").fill(target.dec);
  await page.getByRole("combobox", { name: "Target name" }).fill(target.name);
  await page.getByLabel("Seconds").fill(target.seconds);
}

/** The element that has focus, as the accessible name a person would hear (its label's text, or its own). */
export const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return null;
    const label = element.id ? document.querySelector(`label[for="${CSS.escape(element.id)}"]`) : null;
    return (label?.textContent ?? element.getAttribute("aria-label") ?? element.textContent ?? "").trim();
  });

/** Presses Tab until the control labelled `label` has focus (at most 30 times), as a keyboard user would get there. */
export async function tabTo(page: Page, label: string) {
  for (let press = 0; press < 30; press += 1) {
    if ((await focusedLabel(page)) === label) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached “${label}”; focus is on “${await focusedLabel(page)}”`);
}

/** Replaces what the focused text field holds, by keyboard. */
export async function retype(page: Page, text: string) {
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text);
}

/** The text that describes a control (its message or hint), as assistive technology reads it with the control. */
export const descriptionOf = (control: Locator) =>
  control.evaluate((element) =>
    (element.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" ")
      .trim(),
  );

export const isFocused = (control: Locator) => control.evaluate((element) => element === document.activeElement);

/** The degrees of a right ascension field filled from the catalog (`00h 42m 44.35s`). */
export async function raDegrees(control: Locator): Promise<number> {
  const text = await control.inputValue();
  const parts = /^(\d+)h (\d+)m ([\d.]+)s$/.exec(text);
  if (!parts) throw new Error(`not a filled-in right ascension: ${text}`);
  return (Number(parts[1]) + Number(parts[2]) / 60 + Number(parts[3]) / 3600) * 15;
}

export const stepHeading = (page: Page, text: string) => page.getByRole("heading", { level: 2, name: text });

/** How far down the page's sticky top bar reaches, and the box of what has focus, as the screen shows them. */
export const topBarAndFocus = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement!.getBoundingClientRect();
    return { topBar: document.querySelector("header.sticky")!.getBoundingClientRect().bottom, focused: { top: focused.top, bottom: focused.bottom } };
  });
