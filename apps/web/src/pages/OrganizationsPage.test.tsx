// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { StubRefusal, startApi } from "../test-support/api";
import { renderInApp } from "../test-support/render";
import { managing } from "../organizations/organization-fixture";
import { OrganizationPage } from "./OrganizationPage";
import { OrganizationsPage } from "./OrganizationsPage";

const PAGE_SIZE = 25;
const ALICE = {
  id: "usr_alice",
  name: "Alice Archer",
  email: "alice@example.com",
  roles: [] as string[],
  avatarUrl: null,
  timeDisplay: "observatory",
  emailVerified: true,
};
const ROOT = { ...ALICE, id: "usr_root", name: "Root Admin", email: "root@example.com", roles: ["serverAdmin"] };

const organization = (id: string, name: string, shortName: string, ownerId = "usr_other") => ({
  id,
  name,
  shortName,
  type: "other" as const,
  description: null,
  contactEmail: "office@example.org",
  ownerId,
  createdAt: "2026-11-01T10:00:00.000Z",
  updatedAt: "2026-11-01T10:00:00.000Z",
  externalStorage: [],
});

const pages = (
  <Routes>
    <Route path="/organizations" element={<OrganizationsPage />} />
    <Route path="/organizations/:id" element={<OrganizationPage />} />
  </Routes>
);

describe("the Organizations page", () => {
  it("creates an organization, showing the short name's format as it is typed and the server's refusals at the fields", async () => {
    const TAKEN = "taken-abc";
    let created: ReturnType<typeof organization> | undefined;
    const api = await startApi({
      "auth.me": () => ALICE,
      "organizations.list": () => ({ items: created ? [created] : [], nextCursor: null }),
      "organizations.create": (input) => {
        if (input.shortName.toLowerCase() === TAKEN)
          throw new StubRefusal("SHORT_NAME_TAKEN", 409, "Another organization already uses this short name", [
            { path: "shortName", message: "Another organization already uses this short name" },
          ]);
        created = { ...organization("org_orion", input.name, input.shortName, ALICE.id), type: input.type as "other" };
        return created;
      },
      "organizations.get": () => ({ ...created!, myRole: "owner", myPermissions: managing(true) }),
      "organizations.members": () => ({ items: [] }),
    });
    const { user } = renderInApp(pages, "/organizations");
    await screen.findByRole("heading", { name: "Organizations" });
    await screen.findByText("You are not in any organization yet");

    await user.click(screen.getAllByRole("button", { name: "New organization" })[0]!);
    const dialog = await screen.findByRole("dialog", { name: "Create organization" });
    await user.type(within(dialog).getByLabelText("Name", { exact: true }), "Orion Society");
    await user.selectOptions(within(dialog).getByLabelText("Type"), "research_institute");
    await user.type(within(dialog).getByLabelText("Contact email"), "office@orion.example.org");

    const shortName = within(dialog).getByLabelText("Short name");
    await user.type(shortName, "x");
    within(dialog).getByText("Short name must be 2–32 letters, digits, “-” or “_”, starting with a letter or digit.");
    await user.click(within(dialog).getByRole("button", { name: "Create organization" }));
    await waitFor(() => expect(shortName.getAttribute("aria-invalid")).toBe("true"));
    expect(api.calls("organizations.create")).toEqual([]);

    await user.clear(shortName);
    await user.type(shortName, TAKEN.toUpperCase());
    await user.click(within(dialog).getByRole("button", { name: "Create organization" }));
    await within(dialog).findByText("Another organization already uses this short name");
    expect(shortName.getAttribute("aria-invalid")).toBe("true");

    await user.clear(shortName);
    await user.type(shortName, "orion-abc");
    await user.click(within(dialog).getByRole("button", { name: "Create organization" }));
    await screen.findByRole("heading", { name: "Orion Society", level: 1 });
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Create organization" })).toBeNull());
    await screen.findByText("You are the owner");
    expect(api.calls("organizations.create").at(-1)).toEqual({
      name: "Orion Society",
      shortName: "orion-abc",
      type: "research_institute",
      description: null,
      contactEmail: "office@orion.example.org",
    });
  });

  it("lets a server administrator walk every organization page by page, by keyboard, and search them", async () => {
    const every = Array.from({ length: 31 }, (_, index) => organization(`org_${index}`, `Filler ${String(index).padStart(2, "0")}`, `filler-${index}`));
    every.push(organization("org_last", "Zenith Society", "zz-last"));
    const api = await startApi({
      "auth.me": () => ROOT,
      "organizations.list": (input) => {
        const { all, q, cursor, limit: asked } = input ?? {};
        const limit = Number(asked ?? PAGE_SIZE);
        if (!all) return { items: [], nextCursor: null };
        const found = every.filter((one) => !q || `${one.name} ${one.shortName}`.toLowerCase().includes(q.toLowerCase()));
        const start = cursor ? Number(cursor) : 0;
        return { items: found.slice(start, start + limit), nextCursor: start + limit < found.length ? String(start + limit) : null };
      },
      "organizations.get": ({ id }) => ({ ...every.find((one) => one.id === id)!, myRole: null, myPermissions: managing(false) }),
      "organizations.members": () => ({ items: [] }),
    });
    const { user } = renderInApp(pages, "/organizations");
    await screen.findByText("You are not in any organization yet");
    await user.click(screen.getByRole("switch", { name: "All organizations" }));
    const names = () =>
      within(screen.getByRole("table", { name: "All organizations" }))
        .queryAllByRole("link")
        .map((link) => link.textContent);
    await waitFor(() => expect(names()).toEqual(every.slice(0, PAGE_SIZE).map((one) => one.name)));

    screen.getByRole("button", { name: "Load more" }).focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(names()).toEqual(every.map((one) => one.name)));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Load more" })).toBeNull());

    const search = screen.getByLabelText("Search organizations");
    await user.type(search, "ZZ-LAST");
    await waitFor(() => expect(names()).toEqual(["Zenith Society"]));
    expect(api.calls("organizations.list").at(-1)).toMatchObject({ all: true, q: "ZZ-LAST" });
    await user.clear(search);
    await user.type(search, "nothing-here");
    await screen.findByText("No organization matches “nothing-here”");
    await user.clear(search);
    // Back to the whole list, as walked so far: both pages.
    await waitFor(() => expect(names()).toEqual(every.map((one) => one.name)));
    await user.click(screen.getByRole("link", { name: "Zenith Society" }));
    await screen.findByRole("heading", { name: "Zenith Society", level: 1 });
  });
});
