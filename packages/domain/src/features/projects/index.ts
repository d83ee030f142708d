// The door of the feature projects: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export {
  createProject,
  listProjects,
  getProject,
  updateProject,
  listProjectMembers,
  addProjectMember,
  removeProjectMember,
  MAX_OWNED_PROJECTS,
  MAX_PROJECT_MEMBERSHIPS,
  MAX_PROJECT_MEMBERS,
} from "./projects";
export { updateProjectMemberRole, deleteProject } from "./project-lifecycle";
export { holdProject, loadProjectAccess, requireRoomForMembership } from "./projects";
export { regradeFramesWith } from "./frames-door";
