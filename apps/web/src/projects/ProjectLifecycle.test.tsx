// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { DeleteOrganizationCard } from "../organizations/DeleteOrganizationCard";
import type { Organization } from "../organizations/types";
import { StubRefusal, startApi, type Answer } from "../test-support/api";
import { signedIn } from "../test-support/fixtures";
import { renderInApp } from "../test-support/render";
import { DeleteProjectCard } from "./DeleteProjectCard";
import type { Project } from "./labels";
import { ProjectMembers } from "./ProjectMembers";

let api: Awaited<ReturnType<typeof startApi>> | undefined;

describe("a project's member roles", () => {
  it("lets the owner change a member's role as soon as it is chosen, said on the page and in its live region; the owner's own role is no choice", async () => {
    const members = [
      { userId: "usr_owner", name: "Paula Owner", email: "paula@example.com", role: "owner", joinedAt: "2026-11-01T10:00:00.000Z" },
      { userId: "usr_mia", name: "Mia Member", email: "mia@example.com", role: "member", joinedAt: "2026-11-02T10:00:00.000Z" },
    ];
    api = await startApi({
      "auth.me": () => signedIn({ id: "usr_owner" }),
      "projects.members": () => ({ items: members }) as Answer<"projects.members">,
      "invitations.projectList": () => ({ items: [] }),
      "projects.updateMember": (input: unknown) => {
        const mia = members[1]!;
        mia.role = (input as { role: string }).role;
        return { ...mia } as Answer<"projects.updateMember">;
      },
    });
    renderInApp(<ProjectMembers project={{ id: "prj_1", name: "Survey", status: "active", myRole: "owner" } as Project} />, { where: true });
    await userEvent.setup({ delay: null }).selectOptions(await screen.findByLabelText("Role of Mia Member"), "admin");
    await screen.findByText("Mia Member is now an admin.", { selector: "div, p:not([role])" });
    expect(screen.getAllByRole("status").filter((status) => status.textContent?.includes("Mia Member is now an admin."))).toHaveLength(2);
    expect(api.calls("projects.updateMember")).toEqual([{ id: "prj_1", userId: "usr_mia", role: "admin" }]);
    expect(screen.queryByLabelText("Role of Paula Owner")).toBeNull();
  });
});

const project = (status: string) => ({ id: "prj_1", name: "Old survey", status }) as Project;

describe("deleting a project", () => {
  it("is offered only once it is archived, then asks, says what ends with it, and leaves for the list saying it is gone", async () => {
    api = await startApi({ "auth.me": () => signedIn({ id: "usr_owner" }), "projects.delete": () => ({ ok: true }) });
    const active = renderInApp(<DeleteProjectCard project={project("active")} />, { path: "/projects/prj_1", where: true });
    expect(screen.getByText(/^Only an archived project can be deleted/)).toBeTruthy();
    expect((screen.getByRole("button", { name: "Delete project" }) as HTMLButtonElement).disabled).toBe(true);
    active.unmount();

    renderInApp(<DeleteProjectCard project={project("archived")} />, { path: "/projects/prj_1", where: true });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("button", { name: "Delete project" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete Old survey?" });
    expect(within(dialog).getByText(/its announcements stop showing: active ones are cancelled, acknowledged ones end/)).toBeTruthy();
    await user.click(within(dialog).getByRole("button", { name: "Delete project" }));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/projects"));
    expect(api.calls("projects.delete")).toEqual([{ id: "prj_1" }]);
  });
});

describe("deleting an organization", () => {
  it("shows what it still owns when the server refuses, and deletes it once it owns nothing", async () => {
    let owns = true;
    api = await startApi({
      "auth.me": () => signedIn({ id: "usr_owner" }),
      "organizations.delete": () => {
        if (owns) throw new StubRefusal("ORGANIZATION_NOT_EMPTY", 409, "The organization still owns 1 project (Org survey). Transfer or delete them first.");
        return { ok: true };
      },
    });
    renderInApp(<DeleteOrganizationCard organization={{ id: "org_1", name: "Closing Org" } as Organization} />, { path: "/organizations/org_1", where: true });
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole("button", { name: "Delete organization" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete Closing Org?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete organization" }));
    await waitFor(() => expect(within(dialog).getByRole("alert").textContent).toContain("1 project (Org survey)"));
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Delete Closing Org?" })).toBeNull());

    owns = false;
    await user.click(screen.getByRole("button", { name: "Delete organization" }));
    await user.click(within(await screen.findByRole("dialog", { name: "Delete Closing Org?" })).getByRole("button", { name: "Delete organization" }));
    await waitFor(() => expect(screen.getByTestId("where").textContent).toBe("/organizations"));
  });
});
