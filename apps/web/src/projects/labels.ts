import type { BadgeTone } from "../components/Badge";
import type { RouterOutputs } from "../organizations/types";

export type Project = RouterOutputs["projects"]["get"];
export type ProjectStatus = Project["status"];
export type ProjectMember = RouterOutputs["projects"]["members"]["items"][number];

export const projectStatusInfo: Record<ProjectStatus, { label: string; tone: BadgeTone; description: string }> = {
  active: { label: "Active", tone: "emerald", description: "Observations are being planned and taken." },
  paused: { label: "Paused", tone: "amber", description: "Temporarily on hold." },
  completed: { label: "Completed", tone: "sky", description: "All planned observations are done." },
  archived: { label: "Archived", tone: "slate", description: "Kept for reference only." },
};

export const projectStatuses = Object.keys(projectStatusInfo) as ProjectStatus[];

export const projectRoleLabels: Record<string, string> = {
  owner: "Owner",
  admin: "Admin",
  member: "Member",
  organizationManager: "Organization manager",
  serverAdmin: "Server administrator",
};

/** Owners, project admins, managers of the project's organization and server admins change it. */
export const canManageProject = (project: Project) => project.myRole !== undefined && project.myRole !== "member";
