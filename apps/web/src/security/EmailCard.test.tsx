// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ConfirmEmailPage } from "../pages/ConfirmEmailPage";
import { SecurityPage } from "../pages/SecurityPage";
import { StubRefusal, startApi, type Procedures } from "../test-support/api";
import { renderInApp } from "../test-support/render";

const PASSWORD = "eve's password";
const NEW_EMAIL = "new@example.org";

/** One account's address and its pending change, as `user.requestEmailChange`, `cancelEmailChange` and `auth.confirmEmailChange` keep them. */
function emailApi() {
  const state = { email: "old@example.com", pending: null as string | null, usedTokens: new Set<string>() };
  return {
    state,
    procedures: {
      "auth.me": () => ({ id: "usr_eve", name: "Eve Email", email: state.email, roles: [], avatarUrl: null, timeDisplay: "observatory", emailVerified: true }),
      "user.pendingEmailChange": () =>
        state.pending ? { pendingEmail: state.pending, expiresAt: "2026-11-29T18:00:00.000Z" } : { pendingEmail: null, expiresAt: null },
      "user.sessions": () => ({ items: [] }),
      "user.requestEmailChange": ({ email, currentPassword }: { email: string; currentPassword: string }) => {
        if (currentPassword !== PASSWORD) throw new StubRefusal("INVALID_CREDENTIALS", 403, "Invalid credentials");
        state.pending = email;
        return { ok: true };
      },
      "user.cancelEmailChange": () => {
        state.pending = null;
        return { ok: true };
      },
      "auth.confirmEmailChange": ({ token }: { token: string }) => {
        if (state.usedTokens.has(token) || !state.pending) throw new StubRefusal("INVALID_TOKEN", 400, "Invalid token");
        state.usedTokens.add(token);
        state.email = state.pending;
        state.pending = null;
        return { email: state.email };
      },
    } satisfies Procedures,
  };
}

describe("changing one's email address", () => {
  it("asks by keyboard only, tells a wrong password at its field, then shows the pending change; the link confirms it once", async () => {
    const { procedures } = emailApi();
    const api = await startApi(procedures);
    const security = renderInApp(<SecurityPage />, "/security");
    const card = await screen.findByRole("form", { name: "Change email" });
    await within(card).findByText("old@example.com");

    within(card).getByLabelText("New email").focus();
    await security.user.keyboard(NEW_EMAIL);
    await security.user.tab();
    expect(document.activeElement).toBe(within(card).getByLabelText("Your password"));
    await security.user.keyboard("not my password{Enter}");
    await within(card).findByText("That is not your current password.");
    await security.user.clear(within(card).getByLabelText("Your password"));
    await security.user.keyboard(`${PASSWORD}{Enter}`);
    await within(card).findAllByText(`We sent a link to ${NEW_EMAIL}.`, { exact: false });
    await within(card).findByText("Waiting for confirmation of", { exact: false });
    expect(within(card).getAllByText(NEW_EMAIL, { exact: true }).length).toBeGreaterThan(0);
    expect(api.calls("user.requestEmailChange")).toEqual([
      { email: NEW_EMAIL, currentPassword: "not my password" },
      { email: NEW_EMAIL, currentPassword: PASSWORD },
    ]);
    security.unmount();

    const confirm = renderInApp(<ConfirmEmailPage />, "/confirm-email?token=tok_mail");
    await screen.findByRole("heading", { name: "Confirm your email address" });
    await screen.findAllByText((_, element) => element?.textContent === `Your email address is now ${NEW_EMAIL}. Sign in with it from now on.`);
    confirm.unmount();
    // Opened again, the link is used up.
    renderInApp(<ConfirmEmailPage />, "/confirm-email?token=tok_mail");
    await screen.findByText("This link is invalid or has expired.", { exact: false });
    expect(api.calls("auth.confirmEmailChange")).toEqual([{ token: "tok_mail" }, { token: "tok_mail" }]);
  });

  it("shows the new address and nothing pending once confirmed", async () => {
    const { procedures, state } = emailApi();
    state.email = NEW_EMAIL;
    await startApi(procedures);
    renderInApp(<SecurityPage />, "/security");
    const card = await screen.findByRole("form", { name: "Change email" });
    await within(card).findByText(NEW_EMAIL, { exact: true });
    expect(within(card).queryByText("Waiting for confirmation of", { exact: false })).toBeNull();
  });

  it("cancels a pending change with the keyboard; its link then says it is invalid", async () => {
    const { procedures, state } = emailApi();
    state.pending = "never@example.org";
    const api = await startApi(procedures);
    const { user, unmount } = renderInApp(<SecurityPage />, "/security");
    const card = await screen.findByRole("form", { name: "Change email" });
    (await within(card).findByRole("button", { name: "Cancel the change" })).focus();
    await user.keyboard("{Enter}");
    await within(card).findAllByText("The change was cancelled", { exact: false });
    await waitFor(() => expect(within(card).queryByRole("button", { name: "Cancel the change" })).toBeNull());
    expect(api.calls("user.cancelEmailChange")).toHaveLength(1);
    unmount();

    renderInApp(<ConfirmEmailPage />, "/confirm-email?token=tok_cancelled");
    await screen.findByText("This link is invalid or has expired.", { exact: false });
  });
});
