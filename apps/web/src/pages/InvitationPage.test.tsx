// @vitest-environment happy-dom
import { screen, waitFor } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { StubRefusal, startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { InvitationPage } from "./InvitationPage";
import { LoginPage } from "./LoginPage";
import { SignupPage } from "./SignupPage";

const TOKEN = "tok_invited";
const INVITEE = "nova@example.com";
const pages = (
  <Routes>
    <Route path="/invitations/:token" element={<InvitationPage />} />
    <Route path="/login" element={<LoginPage />} />
    <Route path="/signup" element={<SignupPage />} />
  </Routes>
);

describe("the invitation page", () => {
  it("takes a newcomer through sign-in's create link to sign up with the invited address (the token sent along), then joins", async () => {
    let signedUp = false;
    const api = await startApi({
      "auth.me": () => (signedUp ? signedIn({ id: "usr_nova", name: "Nova Newcomer", email: INVITEE }) : null),
      "invitations.preview": () => ({
        kind: "organization",
        id: "org_invited",
        name: "Invited Society",
        email: INVITEE,
        invitedBy: "Ines Inviter",
        expiresAt: "2026-12-06T10:00:00.000Z",
        accountExists: false,
      }),
      "auth.signup": ({ email }) => {
        if (email !== INVITEE) throw new StubRefusal("INVITATION_EMAIL_MISMATCH", 403, `This invitation is for ${INVITEE}: sign up with that address`);
        signedUp = true;
        return { user: { id: "usr_nova", name: "Nova Newcomer", email: INVITEE, roles: [], avatarUrl: null } };
      },
      "invitations.accept": () => ({ kind: "organization", id: "org_invited" }),
    });
    const { user } = renderInApp(pages, { path: `/invitations/${TOKEN}`, where: true });
    await screen.findByRole("heading", { name: "Join Invited Society" });
    expect(screen.getByText(/^Ines Inviter invited/)).toBeTruthy();

    // By way of the sign-in page, which hands the invitation on to its own "create" link.
    await user.click(screen.getByRole("link", { name: "Sign in" }));
    await user.click(await screen.findByRole("link", { name: "Create an account" }));
    const email = (await screen.findByLabelText("Email")) as HTMLInputElement;
    expect(email.value).toBe(INVITEE);
    await user.type(screen.getByLabelText("Name"), "Nova Newcomer");
    await user.type(screen.getByLabelText("Password"), "a long enough password");
    await user.clear(email);
    await user.type(email, "someone.else@example.com");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await screen.findByText(`This invitation is for ${INVITEE}: sign up with that address`);
    expect(api.calls("auth.signup")).toEqual([
      { name: "Nova Newcomer", email: "someone.else@example.com", password: "a long enough password", invitationToken: TOKEN },
    ]);

    await user.clear(email);
    await user.type(email, INVITEE);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await user.click(await screen.findByRole("button", { name: "Join the organization" }));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/organizations/org_invited"));
    expect(api.calls("invitations.accept")).toEqual([{ token: TOKEN }]);
  });

  it.each([
    ["replaced by a newer one", "A newer invitation replaced this one: use the link in the latest email"],
    ["revoked", "This invitation was revoked"],
  ])("says, in the server's words, that a link %s no longer works", async (_, words) => {
    await startApi({
      "auth.me": () => null,
      "invitations.preview": () => {
        throw new StubRefusal("INVITATION_EXPIRED", 410, words);
      },
    });
    renderInApp(pages, `/invitations/${TOKEN}`);
    await screen.findByText(`${words} Ask whoever invited you to send a new invitation.`);
    expect(screen.queryByRole("link", { name: "Sign in" })).toBeNull();
  });
});
