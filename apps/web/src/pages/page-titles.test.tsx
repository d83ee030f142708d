// @vitest-environment happy-dom
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { DashboardPage } from "./DashboardPage";
import { NotFoundPage } from "./NotFoundPage";
import { OrganizationsPage } from "./OrganizationsPage";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";

const none = () => ({ items: [], nextCursor: null });

describe("page titles and dialogs", () => {
  it("every page names itself in the browser's title", async () => {
    await startApi({ "auth.me": () => signedIn(), "organizations.list": none });
    const dashboard = renderInApp(<DashboardPage />);
    await waitFor(() => expect(document.title).toBe("Dashboard · Meridian"));
    dashboard.unmount();
    const organizations = renderInApp(<OrganizationsPage />);
    await waitFor(() => expect(document.title).toBe("Organizations · Meridian"));
    organizations.unmount();
    renderInApp(<NotFoundPage />);
    await waitFor(() => expect(document.title).toBe("Page not found · Meridian"));
  });

  it("a dialog opens on its first field and gives focus back to its button when it closes", async () => {
    await startApi({ "auth.me": () => signedIn(), "organizations.list": none });
    renderInApp(<OrganizationsPage />);
    const user = userEvent.setup({ delay: null });
    const opener = screen.getAllByRole("button", { name: "New organization" })[0]!;
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "Create organization" });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("Name", { exact: true })));
    expect(dialog.contains(document.activeElement)).toBe(true);
    // Escape reaches the dialog as the browser's cancel (phone-layout's journey presses it on every dialog); Cancel does the same here.
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Create organization" })).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});
