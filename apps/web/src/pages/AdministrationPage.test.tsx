// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { SideNav } from "../layout/SideNav";
import { AdministrationPage } from "./AdministrationPage";
import { startApi } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";

const hrefs = (links: HTMLElement[]) => links.map((link) => link.getAttribute("href")).sort();

describe("the administration overview", () => {
  it("lists every administration page of the navigation, Jobs among them, and leads to each", async () => {
    await startApi({ "auth.me": () => signedIn({ roles: ["serverAdmin"] }) });
    renderInApp(
      <>
        <SideNav />
        <AdministrationPage />
      </>,
      { path: "/admin", where: true },
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
