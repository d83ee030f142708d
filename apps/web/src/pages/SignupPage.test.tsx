// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { startApi, StubRefusal } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { SignupPage } from "./SignupPage";

const TAKEN = "An account with this email already exists: sign in, or reset its password.";

describe("the sign-up page", () => {
  it("shows an address that already has an account on the email field, with what to do, and keeps the typed values", async () => {
    const api = await startApi({
      "auth.me": () => null,
      // The server's own refusal and its words: tests/integration/auth-signup-errors.test.ts.
      "auth.signup": () => {
        throw new StubRefusal("EMAIL_TAKEN", 409, "Email taken", [{ path: "email", message: TAKEN }]);
      },
    });
    const { user } = renderInApp(<SignupPage />, "/signup");
    await user.type(screen.getByLabelText("Name"), "Second Try");
    await user.type(screen.getByLabelText("Email"), "TAKEN@EXAMPLE.COM");
    await user.type(screen.getByLabelText("Password"), "a long enough password");
    screen.getByRole("button", { name: "Create account" }).focus();
    await user.keyboard("{Enter}");
    const message = await screen.findByText(TAKEN);
    const email = screen.getByLabelText("Email") as HTMLInputElement;
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(email.getAttribute("aria-describedby")).toContain(message.id);
    expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("Second Try");
    expect(email.value).toBe("TAKEN@EXAMPLE.COM");
    expect(api.calls("auth.signup")).toEqual([{ name: "Second Try", email: "TAKEN@EXAMPLE.COM", password: "a long enough password" }]);
  });
});
