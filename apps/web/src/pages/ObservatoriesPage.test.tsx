// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { ObservatoriesPage } from "./ObservatoriesPage";
import { startApi, type Answer } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";

describe("the observatories page", () => {
  it("shows an administrator whose observatory it is, by name, and leads to it", async () => {
    await startApi({
      "auth.me": () => signedIn({ id: "usr_admin", roles: ["serverAdmin"] }),
      "observatories.list": () =>
        ({
          items: [
            {
              id: "oby_otto",
              name: "Otto's dome",
              timeZone: "UTC",
              owner: { kind: "user", id: "usr_otto", name: "Otto Owner" },
              connection: { online: false, lastSeenAt: null },
              myPermissions: null,
            },
          ],
          nextCursor: null,
        }) as unknown as Answer<"observatories.list">,
      "organizations.list": () => ({ items: [], nextCursor: null }),
    });
    renderInApp(<ObservatoriesPage />, { path: "/observatories", where: true });
    const card = await screen.findByRole("listitem", { name: "Otto's dome" });
    expect(within(card).getByText(/^Owned by Otto Owner/)).toBeTruthy();
    await userEvent.setup({ delay: null }).click(within(card).getByRole("link"));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/observatories/oby_otto"));
  });
});

describe("the observatories page's announcement marks", () => {
  it("marks an observatory that has announcements showing now, and only that one", async () => {
    const card = (id: string, name: string) => ({
      id,
      name,
      timeZone: "UTC",
      owner: { kind: "user" as const, id: "usr_owner", name: "Owner Olga" },
      connection: { online: false },
    });
    await startApi({
      "auth.me": () => signedIn({ id: "usr_owner" }),
      "observatories.list": () => ({ items: [card("oby_motd", "Dome Motd"), card("oby_quiet", "Quiet dome")], nextCursor: null }),
      "organizations.list": () => ({ items: [], nextCursor: null }),
      "announcements.observatoryCounts": () => ({ items: [{ observatoryId: "oby_motd", activeAnnouncements: 2 }] }),
    });
    renderInApp(<ObservatoriesPage />, "/observatories");
    const marked = await screen.findByRole("listitem", { name: "Dome Motd" });
    const icon = await within(marked).findByRole("img", { name: "Active announcements" });
    expect(icon.getAttribute("title")).toBe("2 active announcements");
    expect(within(screen.getByRole("listitem", { name: "Quiet dome" })).queryByRole("img", { name: "Active announcements" })).toBeNull();
  });
});

describe("the observatories page after a removal", () => {
  it("says which observatory was removed, and lists it no more", async () => {
    await startApi({
      "auth.me": () => signedIn({ id: "usr_owner" }),
      "observatories.list": () => ({ items: [], nextCursor: null }),
      "organizations.list": () => ({ items: [], nextCursor: null }),
    });
    renderInApp(
      <Routes>
        <Route path="/observatories" element={<ObservatoriesPage />} />
      </Routes>,
      { path: { pathname: "/observatories", state: { notice: "Dome 1 was removed." } }, where: true },
    );
    await screen.findByText("Dome 1 was removed.");
    expect(screen.queryByRole("listitem", { name: "Dome 1" })).toBeNull();
  });
});
