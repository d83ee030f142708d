// @vitest-environment happy-dom
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { renderPage, signedIn, startPageApi } from "../pages/page-test-support";
import { UserMenu } from "./UserMenu";

let api: Awaited<ReturnType<typeof startPageApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

const focusedText = () => document.activeElement?.textContent?.trim() ?? "";

describe("the account menu", () => {
  it("works with the arrow keys, Home, End and Escape, and opens a page with Enter", async () => {
    api = await startPageApi({ "auth.me": () => signedIn() });
    renderPage(<UserMenu />);
    const user = userEvent.setup({ delay: null });
    const button = await screen.findByRole("button", { name: "Account menu" });
    button.focus();
    await user.keyboard("{ArrowDown}");
    await screen.findByRole("menu", { name: "Account" });
    await waitFor(() => expect(focusedText()).toBe("Profile"));
    const steps: Array<[string, string]> = [
      ["{ArrowDown}", "Security"],
      ["{End}", "Sign out"],
      ["{ArrowDown}", "Profile"],
      ["{ArrowUp}", "Sign out"],
      ["{Home}", "Profile"],
    ];
    for (const [key, expected] of steps) {
      await user.keyboard(key);
      expect(focusedText()).toBe(expected);
    }
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(document.activeElement).toBe(button);

    await user.keyboard("{Enter}");
    await screen.findByRole("menu", { name: "Account" });
    await user.keyboard("{ArrowDown}{Enter}");
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/security"));
    expect(screen.queryByRole("menu")).toBeNull();
  });
});
