import type { Page } from "playwright-core";
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
