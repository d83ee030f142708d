// @vitest-environment happy-dom
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { UserMenu } from "./UserMenu";

const focusedText = () => document.activeElement?.textContent?.trim() ?? "";

describe("the account menu", () => {
  it("works with the arrow keys, Home, End and Escape, and opens a page with Enter", async () => {
    await startApi({ "auth.me": () => signedIn() });
    renderInApp(<UserMenu />, { where: true });
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
