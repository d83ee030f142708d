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
