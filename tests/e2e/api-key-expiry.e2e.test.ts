import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createAccount, roomyLimits } from "../support/auth-suite";
import { WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const PHONE = { width: 390, height: 844 };
const DAY_MS = 24 * 60 * 60 * 1000;
const { pages, api, server } = browserSuite(roomyLimits);

interface ListedKey {
  id: string;
  name: string;
  expiresAt: string | null;
  expired: boolean;
}
const listed = async (token: string) => (await api<{ items: ListedKey[] }>("/api/v1/user/api-keys", token)).items;

/** The day as the page writes it (the browser's zone and locale, the year only when not this one). */
const dayInPage = (page: Page, iso: string) =>
  page.evaluate((at) => {
    const date = new Date(at);
    const sameYear = date.getFullYear() === new Date().getFullYear();
    return new Intl.DateTimeFormat(undefined, sameYear ? { month: "short", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" }).format(date);
  }, iso);

describe("web app: API keys that expire", { timeout: 120_000 }, () => {
  it("creates a key with the default 90-day expiry from the keyboard and lists when it expires", async () => {
    const account = await createAccount(server());
    const page = await pages.signInAt("owner", account, "api-keys");
    await page.getByText("No API keys yet").waitFor(WAIT);

    await page.getByLabel("Key name").focus();
    await page.keyboard.type("Nightly pipeline");
    await page.keyboard.press("Tab");
    // The next stop is the labelled expiry choice, 90 days unless changed.
    const expires = page.getByLabel("Expires", { exact: true });
    expect(await expires.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await expires.inputValue()).toBe("90");
    expect(await expires.locator("option").allTextContents()).toEqual(["30 days", "90 days", "1 year", "No expiry"]);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "API key “Nightly pipeline” created" }).waitFor(WAIT);

    const [key] = await listed(account.token);
    expect(key).toMatchObject({ name: "Nightly pipeline", expired: false });
    const ahead = Date.parse(key!.expiresAt!) - Date.now();
    expect(ahead).toBeGreaterThan(89 * DAY_MS);
    expect(ahead).toBeLessThanOrEqual(90 * DAY_MS);

    await page.getByRole("button", { name: "I have saved it" }).click();
    const row = page.getByRole("list", { name: "API keys" }).getByRole("listitem").filter({ hasText: "Nightly pipeline" });
    await row.getByText(`Expires ${await dayInPage(page, key!.expiresAt!)}`, { exact: true }).waitFor(WAIT);
  });

  it("tells expired, expiring and lasting keys apart in words, within a phone's screen", async () => {
    const account = await createAccount(server());
    const lasting = await api<{ id: string }>("/api/v1/user/api-keys", account.token, { method: "POST", json: { name: "Lasting key" } });
    const old = await api<{ id: string }>("/api/v1/user/api-keys", account.token, {
      method: "POST",
      json: { name: "Old key with a rather long name for a phone", expiresAt: new Date(Date.now() + DAY_MS).toISOString() },
    });
    const past = new Date(Date.now() - DAY_MS).toISOString();
    await server().server.runtime.deps.sql`update api_keys set doc = jsonb_set(doc, '{expiresAt}', to_jsonb(${past}::text)) where id = ${old.id}`;
    expect((await listed(account.token)).map((key) => [key.id, key.expired])).toEqual([
      [old.id, true],
      [lasting.id, false],
    ]);

    const page = await pages.signInAt("phone", account, "api-keys", PHONE);
    const list = page.getByRole("list", { name: "API keys" });
    const oldRow = list.getByRole("listitem").filter({ hasText: "Old key" });
    await oldRow.getByText("Expired", { exact: true }).waitFor(WAIT);
    await oldRow.getByText(`Expired ${await dayInPage(page, past)}`, { exact: true }).waitFor(WAIT);
    await list.getByRole("listitem").filter({ hasText: "Lasting key" }).getByText("Never expires", { exact: true }).waitFor(WAIT);

    const expires = page.getByLabel("Expires", { exact: true });
    await expires.selectOption("never");
    await page.getByText("Works until revoked", { exact: true }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    for (const control of [expires, page.getByRole("button", { name: "Create key" }), page.getByRole("button", { name: /^Revoke Old key/ })]) {
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
  });
});
