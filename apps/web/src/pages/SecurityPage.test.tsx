// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { StubRefusal, startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { SecurityPage } from "./SecurityPage";

const me = {
  id: "usr_pat",
  name: "Pat Change",
  email: "pat@example.com",
  roles: [],
  avatarUrl: null,
  timeDisplay: "observatory",
  emailVerified: true,
} as const;
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const session = (id: string, userAgent: string, current = false) => ({
  id,
  userAgent,
  ip: "127.0.0.1",
  current,
  createdAt: "2026-11-20T10:00:00.000Z",
  lastUsedAt: "2026-11-20T10:00:00.000Z",
});

describe("the Security page", () => {
  it("changes the password: says mismatched and wrong current passwords on their fields, then empties the form", async () => {
    const api = await startApi({
      "auth.me": () => me,
      "user.pendingEmailChange": () => ({ pendingEmail: null, expiresAt: null }),
      "user.sessions": () => ({ items: [session("s1", CHROME, true)] }),
      "user.changePassword": ({ currentPassword }) => {
        if (currentPassword !== "my old password") throw new StubRefusal("INVALID_CREDENTIALS", 403, "Invalid credentials");
        return { ok: true };
      },
    });
    const { user } = renderInApp(<SecurityPage />, "/security");
    await screen.findByRole("heading", { name: "Security" });
    await waitFor(() => expect(document.title).toBe("Security · Meridian"));

    await user.type(screen.getByLabelText("Current password"), "not my password");
    await user.type(screen.getByLabelText("New password", { exact: true }), "a brand new password");
    await user.type(screen.getByLabelText("Confirm new password"), "a different password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findByText("The two passwords do not match.");
    expect(api.calls("user.changePassword")).toEqual([]);

    await user.clear(screen.getByLabelText("Confirm new password"));
    await user.type(screen.getByLabelText("Confirm new password"), "a brand new password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findByText("That is not your current password.");
    expect(api.calls("user.changePassword")).toEqual([{ currentPassword: "not my password", newPassword: "a brand new password" }]);

    await user.clear(screen.getByLabelText("Current password"));
    await user.type(screen.getByLabelText("Current password"), "my old password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await screen.findAllByText("Your password was changed. Your other sessions were signed out.");
    expect((screen.getByLabelText("Current password") as HTMLInputElement).value).toBe("");
    expect(api.calls("user.changePassword").at(-1)).toEqual({ currentPassword: "my old password", newPassword: "a brand new password" });
    // The sessions list is asked again: the others have ended.
    await waitFor(() => expect(api.calls("user.sessions").length).toBeGreaterThan(1));
    // After the current password, Tab goes to the new one, which a password manager fills (autocomplete).
    expect(screen.getByLabelText("New password", { exact: true }).getAttribute("autocomplete")).toBe("new-password");
  });

  it("lists the sessions, this one first without a sign-out, signs out one of them, then every other one", async () => {
    let sessions = [session("curl", "curl/8.5.0"), session("mine", CHROME, true), session("other", "Mozilla/5.0 (Macintosh) Firefox/130.0")];
    const api = await startApi({
      "auth.me": () => me,
      "user.pendingEmailChange": () => ({ pendingEmail: null, expiresAt: null }),
      "user.sessions": () => ({ items: sessions }),
      "user.revokeSession": ({ id }) => {
        sessions = sessions.filter((one) => one.id !== id);
        return { ok: true };
      },
      "user.revokeOtherSessions": () => {
        sessions = sessions.filter((one) => one.current);
        return { ok: true };
      },
    });
    const { user } = renderInApp(<SecurityPage />, "/security");
    const list = await screen.findByRole("list", { name: "Sessions" });
    const rows = () => within(list).getAllByRole("listitem");
    await waitFor(() => expect(rows()).toHaveLength(3));
    const current = rows()[0]!;
    within(current).getByText("This session");
    within(current).getByText("Chrome on Linux");
    within(current).getByText(/Signed in .* from 127\.0\.0\.1/);
    expect(within(current).queryByRole("button", { name: /^Sign out/ })).toBeNull();

    const curlRow = rows().find((row) => row.textContent?.includes("curl"))!;
    await user.click(within(curlRow).getByRole("button", { name: /^Sign out/ }));
    const dialog = await screen.findByRole("dialog", { name: "Sign out this session?" });
    await user.click(within(dialog).getByRole("button", { name: "Sign out" }));
    await screen.findAllByText("curl was signed out.");
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(api.calls("user.revokeSession")).toEqual([{ id: "curl" }]);

    const othersButton = () => screen.getByRole("button", { name: "Sign out other sessions" }) as HTMLButtonElement;
    await user.click(othersButton());
    const confirm = await screen.findByRole("dialog", { name: "Sign out other sessions?" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Sign out other sessions?" })).toBeNull());
    expect(api.calls("user.revokeOtherSessions")).toEqual([]);

    await user.click(othersButton());
    const again = await screen.findByRole("dialog", { name: "Sign out other sessions?" });
    await user.click(within(again).getByRole("button", { name: "Sign out other sessions" }));
    await screen.findAllByText("Every other session was signed out.");
    await waitFor(() => expect(rows()).toHaveLength(1));
    await waitFor(() => expect(othersButton().disabled).toBe(true));
    expect(api.calls("user.revokeOtherSessions")).toHaveLength(1);
  });
});
