// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ApiKeysPage } from "../pages/ApiKeysPage";
import { startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";

const SECRET = "mk_tele_0123456789abcdefghijklmnop";

describe("a new API key", () => {
  it("is shown once with a copy button, then only its prefix; revoking it asks first", async () => {
    let keys: Array<{ id: string; name: string; prefix: string; createdAt: string; lastUsedAt: null; expiresAt: null; expired: boolean }> = [];
    const api = await startApi({
      "user.apiKeys": () => ({ items: keys }),
      "user.createApiKey": ({ name }) => {
        keys = [{ id: "key_1", name, prefix: "mk_tele", createdAt: "2026-11-29T10:00:00.000Z", lastUsedAt: null, expiresAt: null, expired: false }];
        return { id: "key_1", name, key: SECRET };
      },
      "user.revokeApiKey": ({ id }) => {
        keys = keys.filter((key) => key.id !== id);
        return { ok: true };
      },
    });
    const { user } = renderInApp(<ApiKeysPage />, "/api-keys");
    await screen.findByText("No API keys yet");
    await user.type(screen.getByLabelText("Key name"), "Telescope script");
    await user.click(screen.getByRole("button", { name: "Create key" }));
    await screen.findByRole("heading", { name: "API key “Telescope script” created" });
    expect((screen.getByLabelText("New API key") as HTMLInputElement).value).toBe(SECRET);

    await user.click(screen.getByRole("button", { name: "Copy key" }));
    await screen.findByRole("button", { name: "Copied" });
    expect(await navigator.clipboard.readText()).toBe(SECRET);

    await user.click(screen.getByRole("button", { name: "I have saved it" }));
    await within(await screen.findByRole("list", { name: "API keys" })).findByText("Telescope script");
    expect(screen.queryByLabelText("New API key")).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);

    await user.click(screen.getByRole("button", { name: "Revoke Telescope script" }));
    const dialog = await screen.findByRole("dialog", { name: "Revoke API key?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Revoke API key?" })).toBeNull());
    expect(api.calls("user.revokeApiKey")).toEqual([]);

    await user.click(screen.getByRole("button", { name: "Revoke Telescope script" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Revoke API key?" })).getByRole("button", { name: "Revoke key" }));
    await screen.findByText("No API keys yet");
    expect(api.calls("user.revokeApiKey")).toEqual([{ id: "key_1" }]);
  });
});
