import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { invitationPathFor } from "../support/invitation-links";
import { signupUser, type TestServer } from "../support/test-server";
import { appUrl, WAIT } from "./support/session";
import { browserSuite } from "./support/suite";

const suite = browserSuite();
let server: TestServer;
beforeAll(() => {
  server = suite.server();
});
const { api } = suite;

describe("web app: invitations", { timeout: 120_000 }, () => {
  it("invites an address with no account from the members tab; the invited person signs up through the link and joins", async () => {
    const owner = await signupUser(server, { name: "Ines Inviter" });
    const tag = randomBytes(3).toString("hex");
    const organization = await api<{ id: string; name: string }>("/organizations", owner.token, {
      method: "POST",
      json: { name: `Invited Society ${tag}`, shortName: `inv${tag}`, type: "nonprofit", contactEmail: owner.user.email },
    });
    const invitee = `nova.${tag}@example.com`;

    const page = await suite.pages.signInAt("owner", { email: owner.user.email, password: owner.password }, `organizations/${organization.id}?tab=members`);
    const form = page.getByRole("form", { name: "Add a member" });
    await form.getByLabel("Member email").fill(invitee);
    await form.getByRole("checkbox", { name: /Manage projects/ }).check();
    await form.getByRole("button", { name: "Add member" }).press("Enter");
    await form.getByText("No Meridian account uses this email address.").waitFor(WAIT);
    await form.getByRole("button", { name: "Send invitation" }).press("Enter");
    await form.getByText(`Invitation sent to ${invitee}.`, { exact: false }).waitFor(WAIT);
    const pending = page.getByRole("table", { name: "Pending invitations to the organization" });
    const row = pending.getByRole("row").filter({ hasText: invitee });
    await row.getByText("Manage projects").waitFor(WAIT);

    // Resend replaces the link: the first one stops working.
    const firstPath = await invitationPathFor(server, invitee);
    await row.getByRole("button", { name: `Resend the invitation to ${invitee}` }).press("Enter");
    await page.getByText(`A new invitation went to ${invitee}`).first().waitFor(WAIT);
    const path = await invitationPathFor(server, invitee, { otherThan: firstPath });
    expect(path).not.toBe(firstPath);

    const guest = await suite.pages.signedOut("invitee", { width: 1280, height: 900 });
    await guest.goto(appUrl(server, firstPath));
    await guest.getByText("A newer invitation replaced this one", { exact: false }).waitFor(WAIT);

    await guest.goto(appUrl(server, path));
    await guest.getByRole("heading", { name: `Join ${organization.name}` }).waitFor(WAIT);
    await guest.getByText("Ines Inviter invited").waitFor(WAIT);
    // By way of the sign-in page, which hands the invitation on to its own "create" link.
    await guest.getByRole("link", { name: "Sign in", exact: true }).press("Enter");
    await guest.getByRole("link", { name: "Create an account" }).press("Enter");
    expect(await guest.getByLabel("Email").inputValue()).toBe(invitee);
    await guest.getByLabel("Name").fill("Nova Newcomer");
    await guest.getByLabel("Password").fill("a long enough password");
    // The page sends the link's token along, and the server holds the account to the invited address.
    await guest.getByLabel("Email").fill(`someone.else.${tag}@example.com`);
    await guest.getByRole("button", { name: "Create account" }).press("Enter");
    await guest.getByText(`This invitation is for ${invitee}: sign up with that address`).waitFor(WAIT);
    await guest.getByLabel("Email").fill(invitee);
    await guest.getByRole("button", { name: "Create account" }).press("Enter");
    await guest.getByRole("button", { name: "Join the organization" }).press("Enter");
    await guest.waitForURL(new RegExp(`/organizations/${organization.id}`), WAIT);
    await guest.getByRole("heading", { name: organization.name }).first().waitFor(WAIT);

    // The owner sees the new member, and no pending invitation any more.
    await page.reload();
    await page.getByRole("table", { name: "Organization members" }).getByText("Nova Newcomer").waitFor(WAIT);
    expect(await page.getByRole("table", { name: "Pending invitations to the organization" }).count()).toBe(0);
  });

  it("revokes a pending project invitation, and the link then says so", async () => {
    const owner = await signupUser(server, { name: "Paz Projector" });
    const tag = randomBytes(3).toString("hex");
    const project = await api<{ id: string }>("/projects", owner.token, { method: "POST", json: { name: `Survey ${tag}` } });
    const invitee = `vega.${tag}@example.com`;
    await api(`/projects/${project.id}/invitations`, owner.token, { method: "POST", json: { email: invitee, role: "admin" } });
    const path = await invitationPathFor(server, invitee);

    const page = await suite.pages.signInAt("owner", { email: owner.user.email, password: owner.password }, `projects/${project.id}`);
    const row = page.getByRole("table", { name: "Pending invitations to the project" }).getByRole("row").filter({ hasText: invitee });
    await row.getByText("Admin").waitFor(WAIT);
    await row.getByRole("button", { name: `Revoke the invitation to ${invitee}` }).press("Enter");
    await page.getByText(`The invitation to ${invitee} was revoked.`).first().waitFor(WAIT);
    await page.getByRole("table", { name: "Pending invitations to the project" }).waitFor({ state: "detached", ...WAIT });

    const guest = await suite.pages.signedOut("invitee", { width: 1280, height: 900 });
    await guest.goto(appUrl(server, path));
    await guest.getByText("This invitation was revoked", { exact: false }).waitFor(WAIT);
  });
});
