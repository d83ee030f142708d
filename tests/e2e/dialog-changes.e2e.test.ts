import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { loginSession } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * Form dialogs, from the keyboard alone: closing one with a changed field asks "Discard your
 * changes?" before anything typed is lost, and a submit the server refuses leaves focus inside
 * the dialog (on the field in error), never on the page's body. No drawer holds a form yet.
 */
const ADMIN = { email: "dialog-changes-admin@example.com", password: "dialog changes admin password" };
const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

/** Where keyboard focus is: on `element`, elsewhere inside `container`, outside it, or on the body. */
async function focusOf(container: Locator, element: Locator) {
  const target = await element.elementHandle();
  return container.evaluate((box, target) => {
    const focused = document.activeElement;
    if (!focused || focused === document.body) return "body";
    if (focused === target) return "on it";
    return box.contains(focused) ? "elsewhere inside" : "outside";
  }, target);
}

const isFocused = (element: Locator) => element.evaluate((target) => target === document.activeElement);

/** Opens the Create organization dialog from its button with the keyboard; focus starts on Name. */
async function openCreateOrganization(page: Page, opener: Locator) {
  await opener.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Create organization" });
  await dialog.waitFor(WAIT);
  await expect.poll(() => isFocused(dialog.getByLabel("Name", { exact: true }))).toBe(true);
  return dialog;
}

describe("web app: form dialogs keep what was typed and keep focus after a refusal", { timeout: 90_000 }, () => {
  it("closes an untouched form dialog on Escape at once, and asks before Escape or its close button discards what was typed", async () => {
    const page = await suite.pages.signInAt("discard", ADMIN, "organizations");
    const opener = page.getByRole("main").getByRole("button", { name: "New organization" }).first();
    await opener.waitFor(WAIT);
    const question = page.getByRole("alertdialog", { name: "Discard your changes?" });

    // Untouched: Escape closes it, and focus goes back to its button.
    let dialog = await openCreateOrganization(page, opener);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...WAIT });
    await expect.poll(() => isFocused(opener)).toBe(true);

    // Typed: Escape asks, with Keep editing focused; Enter keeps the text and focus in the field.
    dialog = await openCreateOrganization(page, opener);
    const name = dialog.getByLabel("Name", { exact: true });
    await page.keyboard.type("Half-typed network");
    await page.keyboard.press("Escape");
    await question.waitFor(WAIT);
    await expect.poll(() => isFocused(question.getByRole("button", { name: "Keep editing" }))).toBe(true);
    await page.keyboard.press("Enter");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await dialog.isVisible()).toBe(true);
    expect(await name.inputValue()).toBe("Half-typed network");
    await expect.poll(() => focusOf(dialog, name)).toBe("on it");

    // The close button asks too, and Escape on the question is Keep editing: focus back on that button.
    await page.keyboard.press("Shift+Tab");
    const close = dialog.getByRole("button", { name: "Close" });
    await expect.poll(() => isFocused(close)).toBe(true);
    await page.keyboard.press("Enter");
    await question.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await name.inputValue()).toBe("Half-typed network");
    await expect.poll(() => focusOf(dialog, close)).toBe("on it");

    // Discard closes it, and focus goes back to its button.
    await page.keyboard.press("Escape");
    await question.waitFor(WAIT);
    await page.keyboard.press("Tab");
    await expect.poll(() => isFocused(question.getByRole("button", { name: "Discard" }))).toBe(true);
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached", ...WAIT });
    expect(await question.count()).toBe(0);
    await expect.poll(() => isFocused(opener)).toBe(true);

    // Typed and deleted again: nothing differs from the start, so Escape closes it at once.
    dialog = await openCreateOrganization(page, opener);
    await page.keyboard.type("x");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached", ...WAIT });
    expect(await question.count()).toBe(0);
  });

  it("keeps focus inside the dialog, on the field in error, when the server refuses a submit, and still asks before discarding", async () => {
    const { token } = await loginSession(suite.server(), ADMIN);
    const taken = `taken-${Date.now().toString(36)}`;
    await suite.api("/organizations", token, {
      method: "POST",
      json: { name: "Holder of the name", shortName: taken, type: "other", contactEmail: "holder@example.com" },
    });
    const page = await suite.pages.signInAt("refused", ADMIN, "organizations");
    const opener = page.getByRole("main").getByRole("button", { name: "New organization" }).first();
    await opener.waitFor(WAIT);
    const dialog = await openCreateOrganization(page, opener);

    await page.keyboard.type("Second holder");
    await page.keyboard.press("Tab");
    await page.keyboard.type(taken);
    await page.keyboard.press("Tab");
    const type = dialog.getByLabel("Type");
    await expect.poll(() => isFocused(type)).toBe(true);
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => type.inputValue()).not.toBe("");
    await dialog.getByLabel("Contact email").focus();
    await page.keyboard.type("second@example.com");
    // From the submit button itself: disabled while the request runs, it loses focus.
    const submit = dialog.getByRole("button", { name: "Create organization" });
    await submit.focus();
    await page.keyboard.press("Enter");

    const shortName = dialog.getByLabel("Short name");
    await expect.poll(() => shortName.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => focusOf(dialog, shortName)).toBe("on it");

    // What was typed survived the refusal, so closing still asks.
    await page.keyboard.press("Escape");
    const question = page.getByRole("alertdialog", { name: "Discard your changes?" });
    await question.waitFor(WAIT);
    await page.keyboard.press("Enter");
    await question.waitFor({ state: "detached", ...WAIT });
    expect(await shortName.inputValue()).toBe(taken);
    await expect.poll(() => focusOf(dialog, shortName)).toBe("on it");
  });
});
