// @vitest-environment happy-dom
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { DashboardPage } from "./DashboardPage";
import { NotFoundPage } from "./NotFoundPage";
import { OrganizationsPage } from "./OrganizationsPage";
import { renderPage, signedIn, startPageApi } from "./page-test-support";

let api: Awaited<ReturnType<typeof startPageApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

const none = () => ({ items: [], nextCursor: null });

describe("page titles and dialogs", () => {
  it("every page names itself in the browser's title", async () => {
    api = await startPageApi({ "auth.me": () => signedIn(), "organizations.list": none });
    const dashboard = renderPage(<DashboardPage />);
    await waitFor(() => expect(document.title).toBe("Dashboard · Meridian"));
    dashboard.unmount();
    const organizations = renderPage(<OrganizationsPage />);
    await waitFor(() => expect(document.title).toBe("Organizations · Meridian"));
    organizations.unmount();
    renderPage(<NotFoundPage />);
    await waitFor(() => expect(document.title).toBe("Page not found · Meridian"));
  });

  it("a dialog opens on its first field and gives focus back to its button when it closes", async () => {
    api = await startPageApi({ "auth.me": () => signedIn(), "organizations.list": none });
    renderPage(<OrganizationsPage />);
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
