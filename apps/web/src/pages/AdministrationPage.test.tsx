// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import { SideNav } from "../layout/SideNav";
import { AdministrationPage } from "./AdministrationPage";
import { renderPage, signedIn, startPageApi } from "./page-test-support";

let api: Awaited<ReturnType<typeof startPageApi>> | undefined;
afterEach(async () => {
  cleanup();
  await api?.close();
  api = undefined;
});

const hrefs = (links: HTMLElement[]) => links.map((link) => link.getAttribute("href")).sort();

describe("the administration overview", () => {
  it("lists every administration page of the navigation, Jobs among them, and leads to each", async () => {
    api = await startPageApi({ "auth.me": () => signedIn({ roles: ["serverAdmin"] }) });
    renderPage(
      <>
        <SideNav />
        <AdministrationPage />
      </>,
      "/admin",
    );
    const navigation = await screen.findByRole("navigation", { name: "Main" });
    await waitFor(() =>
      expect(
        within(navigation)
          .getAllByRole("link")
          .some((link) => link.getAttribute("href")?.startsWith("/admin/")),
      ).toBe(true),
    );
    const sections = screen.getByRole("list", { name: "Administration sections" });
    const adminLinks = within(navigation)
      .getAllByRole("link")
      .filter((link) => link.getAttribute("href")?.startsWith("/admin/"));
    expect(hrefs(within(sections).getAllByRole("link"))).toEqual(hrefs(adminLinks));
    expect(hrefs(adminLinks)).toContain("/admin/jobs");

    await userEvent.setup({ delay: null }).click(within(sections).getByRole("link", { name: /^Jobs/ }));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/admin/jobs"));
  });
});
