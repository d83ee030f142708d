// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { AdminUsersPage } from "../pages/AdminUsersPage";
import { StubRefusal, startApi, type Procedures, type Answer } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { descriptionOf, renderInApp } from "../test-support/render";
import { adminAccount } from "./admin-user-fixture";
import type { AdminUser } from "./user-changes";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

/** The server's users, changed by `admin.updateUser` as the server would, or refused by `refuse`. */
function usersApi(users: AdminUser[], refuse?: (input: { id: string; roles?: string[] }) => StubRefusal | undefined): Procedures {
  return {
    "auth.me": () => signedIn({ id: "me", name: "Ada Admin", roles: ["serverAdmin"] }),
    "admin.users": (input: unknown) => {
      const q = (input as { q?: string }).q;
      return {
        items: users.filter((user) => !q || user.email.includes(q)),
        nextCursor: null,
        enabledServerAdmins: users.filter((user) => user.roles.includes("serverAdmin") && !user.disabled).length,
      };
    },
    "admin.updateUser": (input: unknown) => {
      const change = input as { id: string; roles?: string[] };
      const refusal = refuse?.(change);
      if (refusal) throw refusal;
      const user = users.find((one) => one.id === change.id)!;
      if (change.roles) user.roles = change.roles;
      return { user } as unknown as Answer<"admin.updateUser">;
    },
  };
}

const rowOf = (email: string) => screen.getAllByRole("row").find((row) => row.textContent?.includes(email))!;

describe("the Users page's guards", () => {
  it("does not offer disabling one's own account, and says why; anyone else's can be", async () => {
    api = await startApi(usersApi([adminAccount("me", "Ada Admin", { roles: ["serverAdmin"] }), adminAccount("otto", "Otto Other")]));
    renderInApp(<AdminUsersPage />, "/admin/users");
    await screen.findByText("(you)");
    const own = rowOf("me@example.com");
    const disableSelf = within(own).getByRole("button", { name: /^Disable / }) as HTMLButtonElement;
    expect(disableSelf.disabled).toBe(true);
    expect(descriptionOf(disableSelf)).toBe("You cannot disable your own account.");
    expect(within(own).getByText("You cannot disable your own account.")).toBeTruthy();
    const disableOther = within(rowOf("otto@example.com")).getByRole("button", { name: "Disable Otto Other" }) as HTMLButtonElement;
    expect(disableOther.disabled).toBe(false);
    expect(disableOther.getAttribute("aria-describedby")).toBeNull();
  });

  it("does not offer removing the only enabled server admin, offers it once there is a second, and says the server's refusal in the dialog", async () => {
    let refuseRemoval = false;
    api = await startApi(
      usersApi([adminAccount("me", "Ada Admin", { roles: ["serverAdmin"] }), adminAccount("colleague", "Colleague Admin")], (change) =>
        refuseRemoval && change.id === "me" ? new StubRefusal("LAST_SERVER_ADMIN", 409, "Refused") : undefined,
      ),
    );
    renderInApp(<AdminUsersPage />, "/admin/users");
    const user = userEvent.setup({ delay: null });
    await screen.findByText("(you)");
    const reason = "You are the only enabled server admin: make someone else one first.";
    const removeSelf = () => within(rowOf("me@example.com")).getByRole("button", { name: /^Remove server admin/ }) as HTMLButtonElement;
    expect(removeSelf().disabled).toBe(true);
    expect(descriptionOf(removeSelf())).toBe(reason);
    expect(within(rowOf("me@example.com")).getByText(reason)).toBeTruthy();

    // A search that shows only this row still knows there is no other admin: the server counts them.
    await user.type(screen.getByLabelText("Search users"), "me@example.com");
    await waitFor(() => expect(api!.calls("admin.users").at(-1)).toMatchObject({ q: "me@example.com" }));
    await waitFor(() => expect(screen.getAllByRole("row").filter((row) => row.textContent?.includes("@"))).toHaveLength(1));
    expect(removeSelf().disabled).toBe(true);
    await user.clear(screen.getByLabelText("Search users"));
    await waitFor(() => expect(screen.getAllByRole("row").filter((row) => row.textContent?.includes("@")).length).toBeGreaterThan(1));

    await user.click(within(rowOf("colleague@example.com")).getByRole("button", { name: "Make server admin: Colleague Admin" }));
    const make = await screen.findByRole("dialog", { name: "Make server admin?" });
    await user.click(within(make).getByRole("button", { name: "Make server admin" }));
    await waitFor(() => expect(api!.calls("admin.updateUser")).toEqual([{ id: "colleague", roles: ["serverAdmin"] }]));
    await waitFor(() => expect(within(rowOf("colleague@example.com")).getByText("Server admin", { exact: true })).toBeTruthy());
    await waitFor(() => expect(removeSelf().disabled).toBe(false));
    expect(removeSelf().getAttribute("aria-describedby")).toBeNull();
    expect(within(rowOf("me@example.com")).queryByText(reason)).toBeNull();

    // The colleague lost the role behind this page's back: the server refuses what the page still offers.
    refuseRemoval = true;
    removeSelf().focus();
    await user.keyboard("{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Remove server admin?" });
    await user.click(within(dialog).getByRole("button", { name: "Remove server admin" }));
    await within(dialog).findByText(/without an enabled server administrator/);
    expect(within(dialog).getByRole("alert").textContent).toMatch(/without an enabled server administrator/);
    // Where focus goes when the busy button drops it is the browser's: the keyboard journey (keyboard-and-admin-guards) follows it.
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Remove server admin?" })).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(removeSelf()));
  });
});
