// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { RequireServerAdmin } from "../auth/RequireAuth";
import { SideNav } from "../layout/SideNav";
import { AdminUsersPage } from "../pages/AdminUsersPage";
import { startApi, type Procedures } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { adminAccount } from "./admin-user-fixture";
import type { AdminUser } from "./user-changes";

const PAGE_SIZE = 25;
const ADMIN = signedIn({ id: "usr_root", name: "Root Admin", email: "root@example.com", roles: ["serverAdmin"] });

const ADMIN_ROW = adminAccount("usr_root", "Root Admin", { email: "root@example.com", roles: ["serverAdmin"] });

/** The server's users, searched and paged by cursor as `admin.users` does, changed by `admin.updateUser`. */
function usersApi(users: AdminUser[]): Procedures {
  return {
    "auth.me": () => ADMIN,
    "admin.users": (input) => {
      const { q, cursor } = input ?? {};
      // `limit` is coerced by the server's schema, so its input type is `unknown`.
      const limit = Number(input?.limit ?? PAGE_SIZE);
      const found = users.filter((user) => !q || `${user.name} ${user.email}`.toLowerCase().includes(q.toLowerCase()));
      const start = cursor ? Number(cursor) : 0;
      const next = start + limit < found.length ? String(start + limit) : null;
      const enabledServerAdmins = users.filter((user) => user.roles.includes("serverAdmin") && !user.disabled).length;
      return { items: found.slice(start, start + limit), nextCursor: next, enabledServerAdmins };
    },
    "admin.updateUser": ({ id, disabled, roles }) => {
      const user = users.find((one) => one.id === id)!;
      if (disabled !== undefined) user.disabled = disabled;
      if (roles) user.roles = roles;
      return user;
    },
  };
}

const table = () => screen.getByRole("table", { name: "Users" });
const rowsWith = (text: string) =>
  within(table())
    .getAllByRole("row")
    .filter((row) => row.textContent?.includes(text));

describe("the Users page", () => {
  it("is neither listed nor shown to a user who is not a server admin", async () => {
    await startApi({
      "auth.me": () => ({ ...ADMIN, id: "usr_nora", roles: [] }),
      "admin.users": () => ({ items: [], nextCursor: null, enabledServerAdmins: 1 }),
    });
    renderInApp(
      <>
        <SideNav />
        <RequireServerAdmin>
          <AdminUsersPage />
        </RequireServerAdmin>
      </>,
      "/admin/users",
    );
    const nav = screen.getByRole("navigation", { name: "Main" });
    await within(nav).findByRole("link", { name: "Security" });
    expect(within(nav).queryByRole("link", { name: "Administration" })).toBeNull();
    expect(within(nav).queryByRole("link", { name: "Users" })).toBeNull();
    await screen.findByRole("heading", { name: "Server administrators only" });
    expect(screen.queryByRole("table", { name: "Users" })).toBeNull();
  });

  it("is listed in the navigation for a server admin", async () => {
    await startApi({ "auth.me": () => ADMIN });
    renderInApp(<SideNav />, "/");
    await within(screen.getByRole("navigation", { name: "Main" })).findByRole("link", { name: "Administration" });
  });

  it("searches and pages through users", async () => {
    const tag = "pagerabc";
    const users = [
      ADMIN_ROW,
      ...Array.from({ length: PAGE_SIZE + 1 }, (_, index) =>
        adminAccount(`p${index}`, `Pager ${String(index).padStart(2, "0")}`, { email: `${tag}-${index}@example.com` }),
      ),
    ];
    const api = await startApi(usersApi(users));
    const { user } = renderInApp(<AdminUsersPage />, "/admin/users");
    await screen.findByRole("heading", { name: "Users" });
    await waitFor(() => expect(document.title).toBe("Users · Meridian"));

    await user.type(screen.getByLabelText("Search users"), tag);
    await waitFor(() => expect(rowsWith(tag)).toHaveLength(PAGE_SIZE));
    await user.click(screen.getByRole("button", { name: "Load more" }));
    await waitFor(() => expect(rowsWith(tag)).toHaveLength(PAGE_SIZE + 1));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Load more" })).toBeNull());
    expect(api.calls("admin.users").at(-1)).toMatchObject({ q: tag, limit: PAGE_SIZE, cursor: String(PAGE_SIZE) });

    await user.clear(screen.getByLabelText("Search users"));
    await user.type(screen.getByLabelText("Search users"), `${tag}-7@`);
    await waitFor(() => expect(rowsWith(tag)).toHaveLength(1));
    within(rowsWith(tag)[0]!).getByText("Pager 07");

    await user.clear(screen.getByLabelText("Search users"));
    await user.type(screen.getByLabelText("Search users"), "no such user");
    await screen.findByText("No user matches “no such user”");
  });

  it("disables and enables an account, and grants and revokes server admin, each after a confirmation", async () => {
    const dan = adminAccount("dan", "Dan Disable");
    const api = await startApi(usersApi([ADMIN_ROW, dan]));
    const { user } = renderInApp(<AdminUsersPage />, "/admin/users");
    await screen.findByText("dan@example.com");
    const row = () => rowsWith("dan@example.com")[0]!;
    within(row()).getByText("Active", { exact: true });

    await user.click(within(row()).getByRole("button", { name: "Disable Dan Disable" }));
    const disable = await screen.findByRole("dialog", { name: "Disable account?" });
    await user.click(within(disable).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Disable account?" })).toBeNull());
    expect(api.calls("admin.updateUser")).toEqual([]);

    await user.click(within(row()).getByRole("button", { name: "Disable Dan Disable" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Disable account?" })).getByRole("button", { name: "Disable account" }));
    await waitFor(() => within(row()).getByText("Disabled", { exact: true }));
    await screen.findAllByText("Dan Disable was disabled.");

    await user.click(within(row()).getByRole("button", { name: "Enable Dan Disable" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Enable account?" })).getByRole("button", { name: "Enable account" }));
    await waitFor(() => within(row()).getByText("Active", { exact: true }));

    await user.click(within(row()).getByRole("button", { name: /^Make server admin/ }));
    await user.click(within(await screen.findByRole("dialog", { name: "Make server admin?" })).getByRole("button", { name: "Make server admin" }));
    await waitFor(() => within(row()).getByText("Server admin", { exact: true }));

    await user.click(within(row()).getByRole("button", { name: /^Remove server admin/ }));
    await user.click(within(await screen.findByRole("dialog", { name: "Remove server admin?" })).getByRole("button", { name: "Remove server admin" }));
    await waitFor(() => within(row()).getByRole("button", { name: /^Make server admin/ }));
    expect(within(row()).queryByText("Server admin", { exact: true })).toBeNull();
    expect(api.calls("admin.updateUser")).toEqual([
      { id: "dan", disabled: true },
      { id: "dan", disabled: false },
      { id: "dan", roles: ["serverAdmin"] },
      { id: "dan", roles: [] },
    ]);
  });

  it("walks by keyboard from the search to the Show filter, then a user's Edit and Disable, which opens its dialog with Enter", async () => {
    await startApi(usersApi([ADMIN_ROW, adminAccount("kim", "Kim Keyboard")]));
    const { user } = renderInApp(<AdminUsersPage />, "/admin/users");
    await user.type(screen.getByLabelText("Search users"), "kim@example.com");
    await waitFor(() => expect(rowsWith("@")).toHaveLength(1));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByLabelText("Show"));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Edit Kim Keyboard" }));
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Disable Kim Keyboard" }));
    await user.keyboard("{Enter}");
    await screen.findByRole("dialog", { name: "Disable account?" });
  });
});
