// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { StubRefusal, startApi, type Answer } from "../test-support/api";
import { signedIn, ALICE, BOB } from "../test-support/fixtures";
import { renderInApp, tableRow } from "../test-support/render";
import { managing, orionFixture } from "../organizations/organization-fixture";
import { OrganizationPage } from "./OrganizationPage";
import { OrganizationsPage } from "./OrganizationsPage";

type Member = NonNullable<Answer<"organizations.members">["items"]>[number];
type Invitation = NonNullable<Answer<"invitations.organizationList">["items"]>[number];

const every = managing(true);
const none = managing(false);
const member = (who: typeof ALICE, role: "owner" | "member", permissions = role === "owner" ? every : none): Member => ({
  userId: who.id,
  name: who.name,
  email: who.email,
  role,
  permissions,
});

/** Orion Society, owned by `owner`, as the server keeps it: its members, its invitations and its audit log change as the server changes them. */
function orion(owner: typeof ALICE, me: typeof ALICE) {
  const state = {
    ownerId: owner.id,
    members: [member(owner, "owner")],
    invitations: [] as Invitation[],
    audit: [] as Array<NonNullable<Answer<"organizations.audit">["items"]>[number]>,
  };
  const mine = () => state.members.find((one) => one.userId === me.id);
  const organization = () => orionFixture({ ownerId: state.ownerId, myRole: mine()?.role ?? null, myPermissions: mine()?.permissions ?? none });
  const record = (action: string, target: typeof ALICE) =>
    state.audit.unshift({
      id: `aud_${state.audit.length}`,
      action,
      actorId: me.id,
      actorName: me.name,
      target: { kind: "user", id: target.id, name: target.name },
      before: null,
      after: null,
      at: "2026-11-29T10:00:00.000Z",
    });
  return {
    state,
    procedures: {
      "auth.me": () => signedIn(me),
      "organizations.get": () => organization(),
      "organizations.list": () => ({ items: [{ ...organization(), myRole: mine()?.role ?? null }], nextCursor: null }),
      "organizations.members": () => ({ items: state.members }),
      "organizations.audit": () => ({ items: state.audit, nextCursor: null }),
      "invitations.organizationList": () => ({ items: state.invitations }),
    },
    record,
  };
}

const pages = (
  <Routes>
    <Route path="/organizations" element={<OrganizationsPage />} />
    <Route path="/organizations/:id" element={<OrganizationPage />} />
  </Routes>
);
const checkbox = (name: string) => screen.getByRole("checkbox", { name }) as HTMLInputElement;

describe("an organization's members tab", () => {
  it("adds a member by the exact email of an account, then the owner changes a permission, and the audit log tab records both", async () => {
    const { state, procedures, record } = orion(ALICE, ALICE);
    const api = await startApi({
      ...procedures,
      "organizations.addMember": ({ email, permissions }) => {
        if (email.toLowerCase() !== BOB.email) throw new StubRefusal("USER_NOT_FOUND", 404, "No user has this email address");
        const added = member(BOB, "member", { ...none, ...permissions });
        state.members.push(added);
        record("organization.member_added", BOB);
        return added;
      },
      "organizations.updateMember": ({ userId, permissions }) => {
        const changed = state.members.find((one) => one.userId === userId)!;
        changed.permissions = { ...changed.permissions, ...permissions } as typeof none;
        record("organization.member_permissions_updated", BOB);
        return changed;
      },
    });
    const { user } = renderInApp(pages, "/organizations/org_orion");
    await screen.findByRole("tab", { name: "Members", selected: true });
    const form = await screen.findByRole("form", { name: "Add a member" });
    const email = within(form).getByLabelText("Member email") as HTMLInputElement;

    await user.type(email, "nobody@example.com");
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await within(form).findByText("No Meridian account uses this email address.");

    // Sent as typed: the server finds the account in any letter case (tests/integration/org-members.test.ts).
    await user.clear(email);
    await user.type(email, BOB.email.toUpperCase());
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await waitFor(() => expect(tableRow("Organization members", BOB.email)).toBeTruthy());
    expect(within(tableRow("Organization members", BOB.email)!).getByText("Member", { exact: true })).toBeTruthy();
    await waitFor(() => expect(email.value).toBe(""));
    expect(api.calls("organizations.addMember").at(-1)).toEqual({ id: "org_orion", email: BOB.email.toUpperCase(), permissions: none });

    // The owner's own checkboxes are fixed; B's are the owner's to change.
    expect(checkbox(`Manage members for ${ALICE.name}`).checked).toBe(true);
    expect(checkbox(`Manage members for ${ALICE.name}`).disabled).toBe(true);
    expect(screen.queryAllByText(/billing/i)).toEqual([]);
    const projects = checkbox(`Manage projects for ${BOB.name}`);
    expect(projects.checked).toBe(false);
    await user.click(projects);
    await screen.findAllByText(`Permissions saved for ${BOB.name}.`);
    expect(api.calls("organizations.updateMember")).toEqual([{ id: "org_orion", userId: BOB.id, permissions: { can_manage_projects: true } }]);
    expect(checkbox(`Manage projects for ${BOB.name}`).checked).toBe(true);

    await user.click(screen.getByRole("tab", { name: "Audit log" }));
    await screen.findByRole("table", { name: "Audit log" });
    await waitFor(() => expect(tableRow("Audit log", "Member added")?.textContent).toContain(BOB.name));
    expect(tableRow("Audit log", "Permissions changed")).toBeTruthy();
  });

  it("invites an address with no account with the permissions ticked, lists the invitation as pending, and resends it", async () => {
    const { state, procedures } = orion(ALICE, ALICE);
    const invitee = "nova@example.com";
    const api = await startApi({
      ...procedures,
      "organizations.addMember": () => {
        throw new StubRefusal("USER_NOT_FOUND", 404, "No user has this email address");
      },
      "invitations.organizationCreate": ({ invitation }) => {
        const sent = {
          id: `inv_${state.invitations.length}`,
          email: invitation.email,
          permissions: { ...none, ...invitation.permissions },
          expiresAt: "2026-12-06T10:00:00.000Z",
          createdAt: "2026-11-29T10:00:00.000Z",
          invitedBy: { name: ALICE.name },
          expired: false,
        };
        // A second invitation to the address replaces the first (tests/integration/invitations.test.ts).
        state.invitations = [sent];
        return sent;
      },
    });
    const { user } = renderInApp(pages, "/organizations/org_orion");
    const form = await screen.findByRole("form", { name: "Add a member" });
    await user.type(within(form).getByLabelText("Member email"), invitee);
    await user.click(within(form).getByRole("checkbox", { name: /Manage projects/ }));
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await within(form).findByText("No Meridian account uses this email address.");
    await user.click(within(form).getByRole("button", { name: "Send invitation" }));
    await within(form).findByText(new RegExp(`^Invitation sent to ${invitee}\\.`));
    expect(api.calls("invitations.organizationCreate")).toEqual([
      { id: "org_orion", invitation: { email: invitee, permissions: { ...none, can_manage_projects: true } } },
    ]);

    await waitFor(() => expect(tableRow("Pending invitations to the organization", invitee)).toBeTruthy());
    const pending = tableRow("Pending invitations to the organization", invitee)!;
    expect(within(pending).getByText("Manage projects")).toBeTruthy();
    await user.click(within(pending).getByRole("button", { name: `Resend the invitation to ${invitee}` }));
    await screen.findAllByText(`A new invitation went to ${invitee}; the earlier link no longer works.`);
    expect(api.calls("invitations.organizationCreate")).toHaveLength(2);
    expect(api.calls("invitations.organizationCreate")[1]).toEqual(api.calls("invitations.organizationCreate")[0]);
  });
});

describe("an organization's ownership", () => {
  it("is handed to a member once the new owner's email or name is typed; the old owner stays a member with every permission", async () => {
    const { state, procedures } = orion(ALICE, ALICE);
    state.members.push(member(BOB, "member"));
    const api = await startApi({
      ...procedures,
      "organizations.transferOwnership": ({ userId }) => {
        state.ownerId = userId;
        state.members = [member(ALICE, "member", every), member(BOB, "owner")];
        return { id: "org_orion" };
      },
    });
    const { user } = renderInApp(pages, "/organizations/org_orion");
    await screen.findByText("You are the owner");
    await user.click(await screen.findByRole("button", { name: "Transfer ownership" }));
    const dialog = await screen.findByRole("dialog", { name: "Transfer ownership" });
    const heir = await within(dialog).findByRole("option", { name: `${BOB.name} (${BOB.email})` });
    await user.selectOptions(within(dialog).getByLabelText("New owner"), heir);
    // Nothing is handed over until the new owner's email or name is typed, in any letter case.
    const confirm = within(dialog).getByRole("button", { name: "Transfer ownership" }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    await user.type(within(dialog).getByLabelText("Type the new owner's email or name to confirm"), BOB.email.toUpperCase());
    await waitFor(() => expect(confirm.disabled).toBe(false));
    await user.click(confirm);
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Transfer ownership" })).toBeNull());
    await screen.findAllByText(`${BOB.name} is now the owner of Orion Society.`);
    expect(api.calls("organizations.transferOwnership")).toEqual([{ id: "org_orion", userId: BOB.id }]);

    await screen.findByText("You are a member");
    await waitFor(() => expect(within(tableRow("Organization members", BOB.email)!).queryByText("Owner", { exact: true })).toBeTruthy());
    expect(within(tableRow("Organization members", ALICE.email)!).getByText("Member", { exact: true })).toBeTruthy();
    expect(checkbox(`Manage storage for ${ALICE.name}`).checked).toBe(true);
    expect(screen.queryByRole("button", { name: "Transfer ownership" })).toBeNull();
  });

  it("shows the new owner as the owner, in the list of their organizations and on its page, with the owner's controls", async () => {
    const { state, procedures } = orion(BOB, BOB);
    state.members.push(member(ALICE, "member", every));
    await startApi(procedures);
    const { user } = renderInApp(pages, "/organizations");
    await waitFor(() => expect(tableRow("Your organizations", "Orion Society")).toBeTruthy());
    const listed = tableRow("Your organizations", "Orion Society")!;
    expect(within(listed).getByText("Owner", { exact: true })).toBeTruthy();
    await user.click(within(listed).getByRole("link", { name: "Orion Society" }));
    await screen.findByRole("heading", { name: "Orion Society", level: 1 });
    await screen.findByText("You are the owner");
    await waitFor(() => expect(tableRow("Organization members", BOB.email)).toBeTruthy());
    expect(within(tableRow("Organization members", BOB.email)!).getByText("Owner", { exact: true })).toBeTruthy();
    expect(checkbox(`Manage members for ${BOB.name}`).disabled).toBe(true);
    expect(screen.getByRole("button", { name: "Transfer ownership" })).toBeTruthy();
  });
});
