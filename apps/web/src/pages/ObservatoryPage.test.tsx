// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { observatoryFixture } from "../observatories/observatory-fixture";
import { startApi, type Answer } from "../test-support/api";
import { signedIn, ALICE, BOB, ORION } from "../test-support/fixtures";
import { renderInApp, tableRow } from "../test-support/render";
import { ObservatoriesPage } from "./ObservatoriesPage";
import { ObservatoryPage } from "./ObservatoryPage";

type Members = Answer<"observatories.members">;
type Permissions = { can_view: boolean; can_observe: boolean; can_operate: boolean; can_admin: boolean };

const all: Permissions = { can_view: true, can_observe: true, can_operate: true, can_admin: true };
const viewAndObserve: Permissions = { can_view: true, can_observe: true, can_operate: false, can_admin: false };

/** Dome One as the server keeps it for `me`: its owner, members, history and `me`'s permissions change as the server changes them. */
function domeOne(me: typeof ALICE, mine: Answer<"observatories.myPermissions">) {
  const state = {
    observatory: observatoryFixture({ id: "oby_dome", name: "Dome One", owner: { kind: "user", id: ALICE.id, name: ALICE.name }, myPermissions: all }),
    members: { users: [{ userId: ALICE.id, name: ALICE.name, email: ALICE.email, permissions: all, source: "owner" }], organizations: [] } as Members,
    history: [] as Array<NonNullable<Answer<"observatories.history">["items"]>[number]>,
  };
  return {
    state,
    procedures: {
      "auth.me": () => signedIn(me),
      "organizations.list": () => ({ items: [{ ...ORION, myRole: me === BOB ? ("member" as const) : ("owner" as const) }], nextCursor: null }),
      "organizations.get": () => ({ ...ORION, myRole: "owner" as const, myPermissions: { can_manage_observatories: me === ALICE } }),
      "observatories.list": () => ({ items: [state.observatory], nextCursor: null }),
      "observatories.get": () => state.observatory,
      "observatories.myPermissions": () => mine,
      "observatories.members": () => state.members,
      "observatories.history": () => ({ items: state.history, nextCursor: null }),
      "invitations.observatoryList": () => ({ items: [] }),
    },
  };
}

const pages = (
  <Routes>
    <Route path="/observatories" element={<ObservatoriesPage />} />
    <Route path="/observatories/:id" element={<ObservatoryPage />} />
  </Routes>
);
const checkbox = (name: string) => screen.getByRole("checkbox", { name }) as HTMLInputElement;

describe("an observatory and the organizations that are its members", () => {
  it("is created for oneself, then an organization is added with View and Observe only, which its history tells", async () => {
    const { state, procedures } = domeOne(ALICE, { ...all, sources: [{ kind: "owner", permissions: all }] });
    // None until it is created.
    let created: typeof state.observatory | undefined;
    const api = await startApi({
      ...procedures,
      "observatories.list": () => ({ items: created ? [created] : [], nextCursor: null }),
      "observatories.create": ({ name }) => (created = { ...state.observatory, name }),
      "observatories.addOrganization": ({ organizationId, permissions }) => {
        const added = { organizationId, name: ORION.name, owning: false, permissions: permissions as Permissions };
        state.members = { ...state.members, organizations: [added] };
        state.history.unshift({
          id: "h1",
          type: "organization_added",
          data: { organizationName: ORION.name, owning: false, permissionsAfter: permissions },
          actorId: ALICE.id,
          actorName: ALICE.name,
          at: "2026-11-29T10:00:00.000Z",
        });
        return added;
      },
    });
    const { user } = renderInApp(pages, "/observatories");
    await user.click((await screen.findAllByRole("button", { name: "New observatory" }))[0]!);
    const dialog = await screen.findByRole("dialog", { name: "Create observatory" });
    await user.type(within(dialog).getByLabelText("Observatory name"), "Dome One");
    // The creator's own, unless an organization is chosen.
    expect((within(dialog).getByLabelText("Owner") as HTMLSelectElement).value).toBe("");
    await user.click(within(dialog).getByRole("button", { name: "Create observatory" }));
    await screen.findByRole("heading", { name: "Dome One", level: 1 });
    expect(api.calls("observatories.create")).toEqual([{ name: "Dome One" }]);

    await user.click(screen.getByRole("tab", { name: "Members" }));
    const form = await screen.findByRole("form", { name: "Add an organization" });
    await user.selectOptions(within(form).getByLabelText("Organization", { exact: true }), await within(form).findByRole("option", { name: ORION.name }));
    expect((within(form).getByLabelText("View", { exact: true }) as HTMLInputElement).checked).toBe(true);
    expect((within(form).getByLabelText("Observe", { exact: true }) as HTMLInputElement).checked).toBe(true);
    expect((within(form).getByLabelText("Operate", { exact: true }) as HTMLInputElement).checked).toBe(false);
    await user.click(within(form).getByRole("button", { name: "Add organization" }));
    await waitFor(() => expect(tableRow("Member organizations", ORION.name)).toBeTruthy());
    expect(checkbox(`Observe for ${ORION.name}`).checked).toBe(true);
    expect(checkbox(`Operate for ${ORION.name}`).checked).toBe(false);
    expect(api.calls("observatories.addOrganization")).toEqual([{ id: "oby_dome", organizationId: ORION.id, permissions: viewAndObserve }]);

    await user.click(screen.getByRole("tab", { name: "History" }));
    await within(await screen.findByRole("list", { name: "Observatory history" })).findByText(`${ORION.name} added`);
  });

  it("shows a member of the organization what it inherits through it, whose the observatory is, and no way to change who has access", async () => {
    const { state, procedures } = domeOne(BOB, {
      ...viewAndObserve,
      sources: [{ kind: "organization", organizationId: ORION.id, role: "member", permissions: viewAndObserve }],
    });
    state.members = { ...state.members, organizations: [{ organizationId: ORION.id, name: ORION.name, owning: false, permissions: viewAndObserve }] };
    state.observatory = { ...state.observatory, myPermissions: viewAndObserve };
    await startApi(procedures);
    const { user } = renderInApp(pages, "/observatories");
    const card = await screen.findByRole("listitem", { name: "Dome One" });
    const badges = within(card).getByRole("list", { name: "Your permissions" });
    expect(
      within(badges)
        .getAllByRole("listitem")
        .map((badge) => badge.textContent),
    ).toEqual(["Can view", "Can observe"]);
    expect(within(card).getByText(`Owned by ${ALICE.name}`)).toBeTruthy();

    await user.click(within(card).getByRole("link", { name: "Dome One" }));
    await screen.findByRole("heading", { name: "Dome One", level: 1 });
    await user.click(screen.getByRole("tab", { name: "My permissions" }));
    const sources = await screen.findByRole("list", { name: "Permission sources" });
    expect(within(sources).getByText(`Through ${ORION.name}`)).toBeTruthy();
    expect(sources.querySelectorAll(":scope > li")).toHaveLength(1);
    const effective = screen.getByRole("list", { name: "Effective permissions" });
    expect(within(effective).getByText((_, element) => element?.tagName === "P" && element.textContent === "Observe: yes")).toBeTruthy();
    expect(within(effective).getByText((_, element) => element?.tagName === "P" && element.textContent === "Admin: no")).toBeTruthy();

    await user.click(screen.getByRole("tab", { name: "Members" }));
    await waitFor(() => expect(tableRow("Member organizations", ORION.name)).toBeTruthy());
    expect(screen.queryByRole("form", { name: "Add an organization" })).toBeNull();
    expect(checkbox(`Observe for ${ORION.name}`).disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Transfer ownership" })).toBeNull();
  });

  it("is transferred to the organization, which then keeps every permission and cannot be removed; the old owner stays a direct member", async () => {
    const { state, procedures } = domeOne(ALICE, { ...all, sources: [{ kind: "owner", permissions: all }] });
    state.members = { ...state.members, organizations: [{ organizationId: ORION.id, name: ORION.name, owning: false, permissions: viewAndObserve }] };
    const api = await startApi({
      ...procedures,
      "observatories.transferOwnership": () => {
        state.observatory = { ...state.observatory, owner: { kind: "organization", id: ORION.id, name: ORION.name } };
        state.members = {
          users: [{ userId: ALICE.id, name: ALICE.name, email: ALICE.email, permissions: all, source: "direct" }],
          organizations: [{ organizationId: ORION.id, name: ORION.name, owning: true, permissions: all }],
        };
        return state.observatory;
      },
    });
    const { user } = renderInApp(pages, "/observatories/oby_dome?tab=members");
    await screen.findByRole("heading", { name: "Dome One", level: 1 });
    await user.click(await screen.findByRole("button", { name: "Transfer ownership" }));
    const dialog = await screen.findByRole("dialog", { name: "Transfer ownership" });
    await user.click(within(dialog).getByLabelText("An organization"));
    await user.selectOptions(within(dialog).getByLabelText("New owning organization"), await within(dialog).findByRole("option", { name: ORION.name }));
    const confirm = within(dialog).getByRole("button", { name: "Transfer ownership" }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    await user.type(within(dialog).getByLabelText("Type the organization's name to confirm"), ORION.name);
    await user.click(confirm);
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Transfer ownership" })).toBeNull());
    await screen.findByText(`${ORION.name} now owns Dome One.`);
    expect(api.calls("observatories.transferOwnership")).toEqual([{ id: "oby_dome", to: { kind: "organization", id: ORION.id } }]);

    await waitFor(() => expect(within(tableRow("Member organizations", ORION.name)!).queryByText("Owning organization")).toBeTruthy());
    expect(within(tableRow("Member organizations", ORION.name)!).queryByRole("button", { name: `Remove ${ORION.name}` })).toBeNull();
    expect(checkbox(`Admin for ${ORION.name}`).checked).toBe(true);
    expect(checkbox(`Admin for ${ORION.name}`).disabled).toBe(true);
    expect(within(tableRow("People with access", ALICE.email)!).getByText("Direct")).toBeTruthy();
  });
});
