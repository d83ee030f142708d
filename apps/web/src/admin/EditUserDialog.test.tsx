// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AdminUsersPage } from "../pages/AdminUsersPage";
import { StubRefusal, startApi, type ProcedureInput, type Procedures } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { adminAccount } from "./admin-user-fixture";
import type { AdminUser } from "./user-changes";

const ADMIN_ROW = adminAccount("usr_root", "Root Admin", { email: "root@example.com", roles: ["serverAdmin"] });

type ListInput = ProcedureInput<"admin.users">;

/**
 * The server's users as `admin.users` lists them (`q` in the name or email, any case; `status`), and
 * `admin.updateUser` changing them, refusing another account's email in any case as the server does.
 * `hold` may keep a list's answer waiting (a search on its way); `listed` counts the lists answered.
 */
function usersApi(users: AdminUser[], hold: (input: ListInput) => Promise<void> | undefined = () => undefined, listed = { count: 0 }): Procedures {
  return {
    "auth.me": () => signedIn({ id: ADMIN_ROW.id, name: ADMIN_ROW.name, email: ADMIN_ROW.email, roles: ["serverAdmin"] }),
    "admin.users": async (input) => {
      await hold(input);
      const q = input?.q?.toLowerCase();
      const found = users.filter((user) => (!q || `${user.name} ${user.email}`.toLowerCase().includes(q)) && (input?.status !== "disabled" || user.disabled));
      listed.count += 1;
      return { items: found, nextCursor: null, enabledServerAdmins: 1 };
    },
    "admin.updateUser": ({ id, name, email }) => {
      if (email && users.some((other) => other.id !== id && other.email.toLowerCase() === email.toLowerCase()))
        throw new StubRefusal("EMAIL_TAKEN", 409, "An account with this email already exists", [
          { path: "email", message: "Another account already uses this email address." },
        ]);
      const user = users.find((one) => one.id === id)!;
      Object.assign(user, name === undefined ? {} : { name }, email === undefined ? {} : { email });
      return user;
    },
  };
}

const userRows = () =>
  within(screen.getByRole("table", { name: "Users" }))
    .getAllByRole("row")
    .filter((row) => row.textContent?.includes("@"));
const rowOf = (email: string) => userRows().find((row) => row.textContent?.includes(email));

describe("the Users page's Edit dialog", () => {
  it("saves a new name and email by keyboard, refuses another account's email on its field and a blank name before asking, and updates the row", async () => {
    const misspelt = adminAccount("usr_misspelt", "Misspelt Person");
    const oldEmail = misspelt.email;
    const other = adminAccount("usr_other", "Someone Else");
    const api = await startApi(usersApi([ADMIN_ROW, misspelt, other]));
    const { user } = renderInApp(<AdminUsersPage />, "/admin/users");
    const edit = await screen.findByRole("button", { name: "Edit Misspelt Person" });
    edit.focus();
    await user.keyboard("{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Edit user" });
    const name = within(dialog).getByLabelText("Name") as HTMLInputElement;
    const email = within(dialog).getByLabelText("Email") as HTMLInputElement;
    expect(name.value).toBe("Misspelt Person");
    expect(email.value).toBe(oldEmail);
    await waitFor(() => expect(document.activeElement).toBe(name));

    // Another account's address, in other letters' case: refused on the email field, the dialog stays open.
    await user.tab();
    expect(document.activeElement).toBe(email);
    await user.clear(email);
    await user.type(email, `${other.email.toUpperCase()}{Enter}`);
    const taken = await within(dialog).findByText("Another account already uses this email address.");
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(email.getAttribute("aria-describedby")).toBe(taken.getAttribute("id"));
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(api.calls("admin.updateUser")).toEqual([{ id: misspelt.id, name: "Misspelt Person", email: other.email.toUpperCase() }]);
    within(rowOf(oldEmail)!).getByText("Misspelt Person");

    // A blank name is caught before the server is asked.
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(name);
    await user.clear(name);
    await user.type(name, " {Enter}");
    await within(dialog).findByText("Enter a name.");
    expect(api.calls("admin.updateUser")).toHaveLength(1);

    await user.clear(name);
    await user.type(name, "Corrected Person");
    await user.tab();
    await user.clear(email);
    await user.type(email, "corrected@example.org{Enter}");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Edit user" })).toBeNull());
    expect(api.calls("admin.updateUser").at(-1)).toEqual({ id: misspelt.id, name: "Corrected Person", email: "corrected@example.org" });
    await waitFor(() => expect(rowOf("corrected@example.org")?.textContent).toContain("Corrected Person"));
    expect(rowOf(oldEmail)).toBeUndefined();
    await waitFor(() =>
      expect(
        screen.getAllByRole("status").some((status) => status.textContent === "Saved the name and email of Corrected Person (corrected@example.org)."),
      ).toBe(true),
    );
    // Focus goes back to the row's Edit button, now named after the new name.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("button", { name: "Edit Corrected Person" })));
  });

  it("shows only the disabled accounts under Show: Disabled, with the choice in the address, and every account again under All", async () => {
    const active = adminAccount("usr_active", "Still Active");
    const switchedOff = adminAccount("usr_off", "Switched Off", { disabled: true });
    const listed = { count: 0 };
    const api = await startApi(usersApi([ADMIN_ROW, active, switchedOff], undefined, listed));
    const { user } = renderInApp(<AdminUsersPage />, { path: "/admin/users", where: true });
    await screen.findByText(active.email);
    const show = screen.getByLabelText("Show") as HTMLSelectElement;

    await user.selectOptions(show, "disabled");
    await waitFor(() => expect(rowOf(active.email)).toBeUndefined());
    expect(userRows().map((row) => row.textContent)).toEqual([expect.stringContaining(switchedOff.email)]);
    expect(userRows().every((row) => within(row).queryByText("Disabled", { exact: true }))).toBe(true);
    expect(api.calls("admin.users").at(-1)).toMatchObject({ status: "disabled" });
    expect(screen.getByTestId("where").textContent).toBe("/admin/users?show=disabled");

    await user.selectOptions(show, "all");
    await waitFor(() => expect(rowOf(active.email)).toBeDefined());
    expect(rowOf(switchedOff.email)).toBeDefined();
    expect(screen.getByTestId("where").textContent).toBe("/admin/users");
    // The whole list is read again (it was cached): the test ends once that answer is in.
    await waitFor(() => expect(listed.count).toBe(api.calls("admin.users").length));
  });

  it("keeps the list on screen while a search is on its way, so a focused row keeps its focus, and names no empty result early", async () => {
    const held = adminAccount("usr_held", "Held Person");
    const others = [adminAccount("usr_a", "Anne Other"), adminAccount("usr_b", "Bert Other")];
    let release = () => {};
    let waiting = Promise.resolve();
    const hold = () => {
      waiting = new Promise<void>((resolve) => (release = resolve));
    };
    await startApi(usersApi([ADMIN_ROW, held, ...others], (input) => (input?.q ? waiting : undefined)));
    const { user } = renderInApp(<AdminUsersPage />, "/admin/users");
    const edit = await screen.findByRole("button", { name: "Edit Held Person" });
    const before = userRows().length;
    expect(before).toBe(4);
    const search = screen.getByLabelText("Search users");
    const searching = () => screen.queryAllByRole("status").find((status) => status.textContent?.includes("Searching users"));

    hold();
    await user.type(search, held.email);
    await waitFor(() => expect(searching()).toBeDefined());
    expect(userRows()).toHaveLength(before);
    edit.focus();
    release();
    await waitFor(() => expect(userRows()).toHaveLength(1));
    await waitFor(() => expect(searching()).toBeUndefined());
    expect(document.activeElement).toBe(edit);

    // While a search that will find nothing is on its way, the list it replaces stays and no "No user matches" shows.
    hold();
    await user.clear(search);
    await user.type(search, "nobody-here");
    await waitFor(() => expect(searching()).toBeDefined());
    expect(userRows()).toHaveLength(1);
    expect(screen.queryByText(/^No user matches/)).toBeNull();
    release();
    await screen.findByText("No user matches “nobody-here”");
    expect(screen.queryByRole("table", { name: "Users" })).toBeNull();

    // From an empty result to a search that finds someone: no empty state under the new search's name.
    hold();
    await user.clear(search);
    await user.type(search, "Held Person");
    await waitFor(() => expect(searching()).toBeDefined());
    expect(screen.queryByText(/^No user matches/)).toBeNull();
    release();
    await waitFor(() => expect(userRows()).toHaveLength(1));
  });
});
