// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { ApiKeysPage } from "./ApiKeysPage";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The day as the page writes it (the browser's zone and locale, the year only when not this one). */
const dayOf = (iso: string) => {
  const date = new Date(iso);
  const sameYear = date.getFullYear() === new Date().getFullYear();
  return new Intl.DateTimeFormat(undefined, sameYear ? { month: "short", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" }).format(date);
};

const key = (name: string, expiresAt: string | null, expired = false) => ({
  id: `key-${name}`,
  name,
  prefix: "mk_abc",
  createdAt: "2026-11-01T10:00:00.000Z",
  lastUsedAt: null,
  expiresAt,
  expired,
});

describe("the API keys page", () => {
  it("creates a key with the default 90-day expiry from the keyboard and lists when it expires", async () => {
    let keys: Array<ReturnType<typeof key>> = [];
    const api = await startApi({
      "user.apiKeys": () => ({ items: keys }),
      "user.createApiKey": ({ name, expiresAt }) => {
        keys = [key(name, expiresAt ?? null)];
        return { id: keys[0]!.id, name, key: "mk_abc_secret" };
      },
    });
    const { user } = renderInApp(<ApiKeysPage />);
    await screen.findByText("No API keys yet");

    screen.getByLabelText("Key name").focus();
    await user.keyboard("Nightly pipeline");
    await user.tab();
    // The next stop is the labelled expiry choice, 90 days unless changed.
    const expires = screen.getByLabelText("Expires") as HTMLSelectElement;
    expect(document.activeElement).toBe(expires);
    expect(expires.value).toBe("90");
    expect(
      within(expires)
        .getAllByRole("option")
        .map((option) => option.textContent),
    ).toEqual(["30 days", "90 days", "1 year", "No expiry"]);
    await user.tab();
    await user.keyboard("{Enter}");
    await screen.findByRole("heading", { name: "API key “Nightly pipeline” created" });

    const [created] = api.calls("user.createApiKey");
    expect(created).toMatchObject({ name: "Nightly pipeline" });
    const ahead = Date.parse(created!.expiresAt!) - Date.now();
    expect(ahead).toBeGreaterThan(89 * DAY_MS);
    expect(ahead).toBeLessThanOrEqual(90 * DAY_MS);

    await user.click(screen.getByRole("button", { name: "I have saved it" }));
    const list = await screen.findByRole("list", { name: "API keys" });
    await waitFor(() => within(list).getByText(`Expires ${dayOf(created!.expiresAt!)}`, { exact: true }));
  });

  it("tells expired, expiring and lasting keys apart in words, and says a key without expiry works until revoked", async () => {
    const past = new Date(Date.now() - DAY_MS).toISOString();
    await startApi({
      "user.apiKeys": () => ({ items: [key("Old key with a rather long name for a phone", past, true), key("Lasting key", null)] }),
    });
    const { user } = renderInApp(<ApiKeysPage />);
    const list = await screen.findByRole("list", { name: "API keys" });
    const row = (name: string) =>
      within(list)
        .getAllByRole("listitem")
        .find((item) => item.textContent?.includes(name))!;
    within(row("Old key")).getByText("Expired", { exact: true });
    within(row("Old key")).getByText(`Expired ${dayOf(past)}`, { exact: true });
    within(row("Lasting key")).getByText("Never expires", { exact: true });
    expect(within(row("Lasting key")).queryByText("Expired", { exact: true })).toBeNull();

    await user.selectOptions(screen.getByLabelText("Expires"), "never");
    screen.getByText("Works until revoked", { exact: true });
  });

  it("links to the API reference (whose favicon tests/integration/api-openapi.test.ts checks)", async () => {
    await startApi({ "user.apiKeys": () => ({ items: [] }) });
    renderInApp(<ApiKeysPage />);
    expect(screen.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe("/api/docs");
    await screen.findByText("No API keys yet");
  });
});
