// @vitest-environment happy-dom
import { DEFAULT_FRAME_GRADING } from "@meridian/rules/frames";
import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import { describe, expect, it } from "vitest";
import { startApi, type Answer } from "../test-support/api";
import { signedIn, ALICE, BOB, ORION as ORGANIZATION } from "../test-support/fixtures";
import { renderInApp, tableRow } from "../test-support/render";
import { ProjectPage } from "./ProjectPage";
import { ProjectsPage } from "./ProjectsPage";

type Project = Answer<"projects.get">;
type Member = NonNullable<Answer<"projects.members">["items"]>[number];
type Invitation = NonNullable<Answer<"invitations.projectList">["items"]>[number];

const ORION = { ...ORGANIZATION, myRole: "owner" as const };
const joinedAt = "2026-11-29T10:00:00.000Z";

/** A project's page and what it asks besides the project: its observations, usage and announcements, all empty. */
const around = {
  "organizations.list": () => ({ items: [ORION], nextCursor: null }),
  // B owns the organization, so it may hold B's projects.
  "organizations.get": () => ({ ...ORION, myPermissions: { can_manage_projects: true } }),
  "observations.list": () => ({ items: [], nextCursor: null }),
  "announcements.listActive": () => ({ items: [] }),
};
const pages = (
  <Routes>
    <Route path="/projects" element={<ProjectsPage />} />
    <Route path="/projects/:id" element={<ProjectPage />} />
  </Routes>
);

describe("a project of an organization", () => {
  it("is created for the organization, then its status is saved and a member added as admin and removed again; the owner has no remove button", async () => {
    let project: Project | undefined;
    const members: Member[] = [];
    const api = await startApi({
      ...around,
      "auth.me": () => signedIn(BOB),
      "projects.list": () => ({ items: project ? [project] : [], nextCursor: null }),
      "projects.create": ({ name, organizationId }) => {
        project = {
          id: "prj_var",
          name,
          status: "active",
          organizationId,
          ownerId: BOB.id,
          myRole: "owner",
          createdAt: joinedAt,
          frameGrading: DEFAULT_FRAME_GRADING,
        };
        members.push({ userId: BOB.id, name: BOB.name, email: BOB.email, role: "owner", joinedAt });
        return project;
      },
      "projects.get": () => project!,
      "projects.update": ({ update }) => (project = { ...project, ...update }),
      "projects.members": () => ({ items: members }),
      "invitations.projectList": () => ({ items: [] }),
      "projects.addMember": ({ email, role }) => {
        const added = { userId: ALICE.id, name: ALICE.name, email: ALICE.email, role, joinedAt };
        if (email === ALICE.email) members.push(added);
        return added;
      },
      "projects.removeMember": ({ userId }) => {
        members.splice(
          members.findIndex((one) => one.userId === userId),
          1,
        );
        return { ok: true };
      },
    });
    const { user } = renderInApp(pages, "/projects");
    await screen.findByText("No projects yet");
    await user.click(screen.getAllByRole("button", { name: "New project" })[0]!);
    const dialog = await screen.findByRole("dialog", { name: "Create project" });
    await user.type(within(dialog).getByLabelText("Project name"), "Variable stars");
    await user.selectOptions(within(dialog).getByLabelText("Organization"), await within(dialog).findByRole("option", { name: ORION.name }));
    await user.click(within(dialog).getByRole("button", { name: "Create project" }));
    await screen.findByRole("heading", { name: "Variable stars", level: 1 });
    expect(api.calls("projects.create")).toEqual([{ name: "Variable stars", organizationId: ORION.id }]);

    await user.selectOptions(screen.getByLabelText("Status"), "paused");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await screen.findAllByText("Project saved");
    expect(api.calls("projects.update")).toEqual([{ id: "prj_var", update: { status: "paused" } }]);

    const form = screen.getByRole("form", { name: "Add a project member" });
    await user.type(within(form).getByLabelText("Member email"), ALICE.email);
    await user.selectOptions(within(form).getByLabelText("Role"), "admin");
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await waitFor(() => expect((screen.getByLabelText(`Role of ${ALICE.name}`) as HTMLSelectElement).value).toBe("admin"));
    expect(api.calls("projects.addMember")).toEqual([{ id: "prj_var", email: ALICE.email, role: "admin" }]);
    // The owner cannot be removed: there is no button for it.
    expect(within(tableRow("Project members", BOB.email)!).queryAllByRole("button")).toEqual([]);

    await user.click(within(tableRow("Project members", ALICE.email)!).getByRole("button", { name: `Remove ${ALICE.name}` }));
    const confirm = await screen.findByRole("dialog", { name: "Remove member?" });
    await user.click(within(confirm).getByRole("button", { name: "Remove member" }));
    await waitFor(() => expect(tableRow("Project members", ALICE.email)).toBeUndefined());
    expect(api.calls("projects.removeMember")).toEqual([{ id: "prj_var", userId: ALICE.id }]);
  });
});

describe("a project's pending invitations", () => {
  it("revokes one, says so, and lists pending invitations no more", async () => {
    let invitations: Invitation[] = [
      {
        id: "inv_vega",
        email: "vega@example.com",
        role: "admin",
        expiresAt: "2026-12-06T10:00:00.000Z",
        createdAt: joinedAt,
        invitedBy: { name: "Paz Projector" },
        expired: false,
      },
    ];
    const api = await startApi({
      ...around,
      "auth.me": () => signedIn({ id: "usr_paz", name: "Paz Projector" }),
      "projects.get": () => ({
        id: "prj_survey",
        name: "Survey",
        status: "active",
        organizationId: null,
        ownerId: "usr_paz",
        myRole: "owner",
        createdAt: joinedAt,
        frameGrading: DEFAULT_FRAME_GRADING,
      }),
      "projects.members": () => ({ items: [{ userId: "usr_paz", name: "Paz Projector", email: "paz@example.com", role: "owner", joinedAt }] }),
      "invitations.projectList": () => ({ items: invitations }),
      "invitations.projectRevoke": () => {
        invitations = [];
        return { ok: true };
      },
    });
    const { user } = renderInApp(pages, "/projects/prj_survey");
    await screen.findByRole("table", { name: "Pending invitations to the project" });
    const pending = tableRow("Pending invitations to the project", "vega@example.com")!;
    expect(within(pending).getByText("Admin")).toBeTruthy();
    await user.click(within(pending).getByRole("button", { name: "Revoke the invitation to vega@example.com" }));
    await screen.findAllByText("The invitation to vega@example.com was revoked.");
    await waitFor(() => expect(screen.queryByRole("table", { name: "Pending invitations to the project" })).toBeNull());
    expect(api.calls("invitations.projectRevoke")).toEqual([{ id: "prj_survey", invitationId: "inv_vega" }]);
  });
});
