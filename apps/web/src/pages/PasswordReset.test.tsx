// @vitest-environment happy-dom
import { screen, waitFor } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { startApi, StubRefusal } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { ForgotPasswordPage } from "./ForgotPasswordPage";
import { LoginPage } from "./LoginPage";
import { ResetPasswordPage } from "./ResetPasswordPage";

/** The sign-in, forgot-password and reset pages, linked as the app links them. */
const pages = (
  <Routes>
    <Route path="/login" element={<LoginPage />} />
    <Route path="/forgot-password" element={<ForgotPasswordPage />} />
    <Route path="/reset-password" element={<ResetPasswordPage />} />
  </Routes>
);

const NEUTRAL = /^If an account exists for that address, we sent a link/;

describe("a forgotten password", () => {
  it("goes from the sign-in page to the request, which gives one answer whatever the address, also by Enter", async () => {
    const api = await startApi({ "auth.me": () => null, "auth.requestPasswordReset": () => ({ ok: true }) });
    const { user, unmount } = renderInApp(pages, "/login");
    await user.click(await screen.findByRole("link", { name: "Forgot password?" }));
    await screen.findByRole("heading", { name: "Reset your password" });
    await waitFor(() => expect(document.title).toBe("Forgot password · Meridian"));
    await user.type(screen.getByLabelText("Email"), "nobody@example.com");
    await user.click(screen.getByRole("button", { name: "Email me a reset link" }));
    const unknown = (await screen.findByText(NEUTRAL)).textContent;
    expect(api.calls("auth.requestPasswordReset")).toEqual([{ email: "nobody@example.com" }]);
    unmount();

    // Whether the address has an account is the server's to keep (tests/integration/accounts.test.ts, "password reset"): the page says the same.
    const again = renderInApp(pages, "/forgot-password");
    await again.user.type(await screen.findByLabelText("Email"), "fay@example.com{Enter}");
    expect((await screen.findByText(NEUTRAL)).textContent).toBe(unknown);
    expect(api.calls("auth.requestPasswordReset").at(-1)).toEqual({ email: "fay@example.com" });
  });

  it("sets the new password from the link's token and says so on the sign-in page", async () => {
    const api = await startApi({ "auth.me": () => null, "auth.confirmPasswordReset": () => ({ ok: true }) });
    const { user } = renderInApp(pages, "/reset-password?token=tok_once");
    await screen.findByRole("heading", { name: "Choose a new password" });
    await user.type(screen.getByLabelText("New password", { exact: true }), "remembered at last");
    await user.type(screen.getByLabelText("Confirm new password"), "remembered at last");
    await user.click(screen.getByRole("button", { name: "Set new password" }));
    await screen.findByRole("heading", { name: "Sign in" });
    await screen.findAllByText("Your password was changed. Sign in with the new one.");
    expect(api.calls("auth.confirmPasswordReset")).toEqual([{ token: "tok_once", newPassword: "remembered at last" }]);
  });

  it("says a used link is dead and offers a new one", async () => {
    await startApi({
      "auth.me": () => null,
      "auth.confirmPasswordReset": () => {
        throw new StubRefusal("INVALID_TOKEN", 400, "Invalid token");
      },
    });
    const { user } = renderInApp(pages, "/reset-password?token=tok_used");
    await user.type(await screen.findByLabelText("New password", { exact: true }), "a second new password");
    await user.type(screen.getByLabelText("Confirm new password"), "a second new password");
    await user.click(screen.getByRole("button", { name: "Set new password" }));
    await screen.findByText(/This link is invalid or has expired\./);
    await user.click(screen.getByRole("link", { name: "Request a new link" }));
    await screen.findByRole("heading", { name: "Reset your password" });
  });
});

describe("signing in", () => {
  it("says a disabled account is disabled", async () => {
    await startApi({
      "auth.me": () => null,
      "auth.login": () => {
        throw new StubRefusal("ACCOUNT_DISABLED", 403, "Account disabled");
      },
    });
    const { user } = renderInApp(pages, "/login");
    await user.type(await screen.findByLabelText("Email"), "dan@example.com");
    await user.type(screen.getByLabelText("Password"), "dan's password");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/This account is disabled\./);
  });
});
