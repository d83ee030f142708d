import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, loginSession } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

/**
 * Admin → Users: a server admin corrects an account's name and email in a form dialog, from the
 * keyboard alone, at desktop and phone size; an email another account uses is refused on its field.
 */
const ADMIN = { email: "user-edit-admin@example.com", password: "user edit admin password" };
const PHONE = { width: 390, height: 844 };
const suite = browserSuite({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });

const userRow = (page: Page, email: string) => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: email });

/** The accessible name of the focused element, as far as these pages name their controls. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const focused = document.activeElement;
    return focused === document.body ? "body" : (focused?.getAttribute("aria-label") ?? focused?.textContent?.trim() ?? "");
  });

/** Whether the focused element is inside `container`. */
const holdsFocus = (container: Locator) => container.evaluate((element) => element.contains(document.activeElement));

/** Replaces the text of the focused field from the keyboard. */
async function retype(page: Page, text: string) {
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.type(text);
}

let adminToken: string | undefined;
/** The accounts whose email contains `email`, as the server lists them to the admin. */
async function stored(email: string) {
  adminToken ??= (await loginSession(suite.server(), ADMIN)).token;
  const page = await suite.api<{ items: Array<{ id: string; name: string; email: string }> }>(`/api/v1/admin/users?q=${encodeURIComponent(email)}`, adminToken);
  return page.items;
}

describe("web app: a server admin edits a user's name and email", { timeout: 90_000 }, () => {
  it("saves a new name and email from the keyboard, refuses another account's email on the field, and updates the list", async () => {
    const user = await createAccount(suite.server(), { name: "Misspelt Person" });
    const other = await createAccount(suite.server(), { name: "Someone Else" });
    const page = await suite.pages.signInAt("admin", ADMIN, "admin/users");
    const edit = userRow(page, user.email).getByRole("button", { name: "Edit Misspelt Person" });
    await edit.waitFor(WAIT);
    await edit.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Edit user" });
    await dialog.waitFor(WAIT);
    const name = dialog.getByLabel("Name");
    const email = dialog.getByLabel("Email");
    expect(await name.inputValue()).toBe("Misspelt Person");
    expect(await email.inputValue()).toBe(user.email);
    await expect.poll(() => name.evaluate((input) => input === document.activeElement)).toBe(true);

    // Another account's address, in other letters' case: refused on the email field, the dialog stays open.
    await page.keyboard.press("Tab");
    await retype(page, other.email.toUpperCase());
    await page.keyboard.press("Enter");
    const taken = dialog.getByText("Another account already uses this email address.");
    await taken.waitFor(WAIT);
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(await email.getAttribute("aria-describedby")).toBe(await taken.getAttribute("id"));
    expect(await holdsFocus(dialog)).toBe(true);
    expect(await stored(user.email)).toMatchObject([{ id: user.id, name: "Misspelt Person", email: user.email }]);

    // A blank name is caught before the server is asked.
    await page.keyboard.press("Shift+Tab");
    expect(await name.evaluate((input) => input === document.activeElement)).toBe(true);
    await retype(page, " ");
    await page.keyboard.press("Enter");
    await dialog.getByText("Enter a name.").waitFor(WAIT);

    await retype(page, "Corrected Person");
    await page.keyboard.press("Tab");
    const newEmail = `corrected-${randomBytes(4).toString("hex")}@example.org`;
    await retype(page, newEmail);
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    const row = userRow(page, newEmail);
    await row.getByText("Corrected Person").waitFor(WAIT);
    expect(await userRow(page, user.email).count()).toBe(0);
    await page
      .getByRole("status")
      .filter({ hasText: `Saved the name and email of Corrected Person (${newEmail}).` })
      .last()
      .waitFor(WAIT);
    // Focus goes back to the row's Edit button, now named after the new name.
    await expect.poll(() => focusedName(page)).toBe("Edit Corrected Person");
    expect(await stored(newEmail)).toMatchObject([{ id: user.id, name: "Corrected Person", email: newEmail }]);

    // Escape closes the dialog (nothing typed, so nothing to confirm), and focus is back on the button.
    await page.keyboard.press("Enter");
    await dialog.waitFor(WAIT);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await expect.poll(() => focusedName(page)).toBe("Edit Corrected Person");
  });

  it("fits a phone (390×844): the dialog and its buttons are on screen, and saving updates the card", async () => {
    const user = await createAccount(suite.server(), { name: "Phone Person" });
    const page = await suite.pages.signInAt("phone", ADMIN, "admin/users", PHONE);
    await page.getByLabel("Search users").fill(user.email);
    // The search has settled once the list holds this account alone and no search is on its way.
    await expect.poll(() => page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" }).count(), WAIT).toBe(1);
    await page
      .getByRole("status")
      .filter({ hasText: "Searching users" })
      .waitFor({ state: "detached", ...WAIT });
    const edit = userRow(page, user.email).getByRole("button", { name: "Edit Phone Person" });
    await edit.waitFor(WAIT);
    await edit.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Edit user" });
    await dialog.waitFor(WAIT);
    for (const control of [dialog.getByLabel("Name"), dialog.getByLabel("Email"), dialog.getByRole("button", { name: "Save changes" })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
      expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await retype(page, "Phone Person Renamed");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden", ...WAIT });
    await userRow(page, user.email).getByText("Phone Person Renamed").waitFor(WAIT);
  });

  it("on a phone, shows only the disabled accounts when Disabled is picked from the keyboard, and every account again with All", async () => {
    const active = await createAccount(suite.server(), { name: "Still Active" });
    const disabled = await createAccount(suite.server(), { name: "Switched Off" });
    adminToken ??= (await loginSession(suite.server(), ADMIN)).token;
    await suite.api(`/api/v1/admin/users/${disabled.id}`, adminToken, { method: "PUT", json: { disabled: true } });
    const page = await suite.pages.signInAt("filter", ADMIN, "admin/users", PHONE);
    await userRow(page, active.email).waitFor(WAIT);
    const userRows = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" });
    const rowTexts = () => userRows.allInnerTexts();
    const show = page.getByRole("combobox", { name: "Show" });

    const box = await show.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    await page.getByLabel("Search users").focus();
    await page.keyboard.press("Tab");
    await expect.poll(() => show.evaluate((select) => select === document.activeElement)).toBe(true);
    // Two keys at once: the second moves on from the first's choice, not from the one before it.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => show.inputValue()).toBe("disabled");
    await expect.poll(async () => (await rowTexts()).some((text) => text.includes(active.email)), WAIT).toBe(false);
    const shown = await rowTexts();
    expect(shown.some((text) => text.includes(disabled.email))).toBe(true);
    expect(shown.every((text) => text.includes("Disabled"))).toBe(true);
    expect(new URL(page.url()).searchParams.get("show")).toBe("disabled");

    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => show.inputValue()).toBe("all");
    await userRow(page, active.email).waitFor(WAIT);
    await userRow(page, disabled.email).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.has("show")).toBe(false);
  });

  it("keeps the list on screen while a search is on its way, so a focused row keeps its focus, and names no empty result early", async () => {
    const user = await createAccount(suite.server(), { name: "Held Person" });
    const page = await suite.pages.signInAt("held", ADMIN, "admin/users");
    const edit = userRow(page, user.email).getByRole("button", { name: "Edit Held Person" });
    await edit.waitFor(WAIT);
    const userRows = page.getByRole("table", { name: "Users" }).getByRole("row").filter({ hasText: "@" });
    const before = await userRows.count();
    expect(before).toBeGreaterThan(1);

    // Searches wait at the network until the test lets them through.
    let release = () => {};
    let held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/trpc\/[^?]*admin\.users/, async (route) => {
      if (new URL(route.request().url()).searchParams.get("input")?.includes('"q"')) await held;
      await route.continue();
    });
    const searching = page.getByRole("status").filter({ hasText: "Searching users" });

    await page.getByLabel("Search users").fill(user.email);
    await searching.waitFor(WAIT);
    expect(await userRows.count()).toBe(before);
    await edit.focus();
    release();
    await expect.poll(() => userRows.count(), WAIT).toBe(1);
    await searching.waitFor({ state: "detached", ...WAIT });
    expect(await focusedName(page)).toBe("Edit Held Person");

    // While a search that will find nothing is on its way, the list it replaces stays and no "No user matches" shows.
    held = new Promise<void>((resolve) => (release = resolve));
    const nothing = `nobody-${randomBytes(4).toString("hex")}`;
    await page.getByLabel("Search users").fill(nothing);
    await searching.waitFor(WAIT);
    expect(await userRows.count()).toBe(1);
    release();
    await page.getByText(`No user matches “${nothing}”`).waitFor(WAIT);
    expect(await userRows.count()).toBe(0);

    // From an empty result to a search that finds someone (one not asked before, so no answer is cached):
    // no empty state is shown under the new search's name.
    held = new Promise<void>((resolve) => (release = resolve));
    await page.getByLabel("Search users").fill("Held Person");
    await searching.waitFor(WAIT);
    expect(await page.getByText(/^No user matches/).count()).toBe(0);
    release();
    await expect.poll(() => userRows.count(), WAIT).toBe(1);
  });
});
