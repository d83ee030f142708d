import { z } from "@hono/zod-openapi";
import {
  addProjectMember,
  addProjectMemberSchema,
  createProject,
  deleteProject,
  getProject,
  listProjectMembers,
  listProjects,
  MAX_OWNED_PROJECTS,
  MAX_PROJECT_MEMBERSHIPS,
  MAX_PROJECT_MEMBERS,
  projectCreateSchema,
  projectMemberSchema,
  projectSchema,
  projectUpdateSchema,
  removeProjectMember,
  updateProject,
  updateProjectMemberRole,
  updateProjectMemberSchema,
} from "@meridian/domain/projects";
import { defineOperation } from "./define-operation";
import { projectUsageOperations } from "./allocations";
import { authedErrors, conflict, idParam, problemResponseFor, wholeList } from "./responses";

const tags = ["Projects"];
const params = z.object({ id: idParam });
const memberParams = z.object({ id: idParam, userId: idParam });
const access =
  "Members read. The owner, project admins, and for an organization's project its owner and " +
  "members with can_manage_projects manage. Server admins may do everything.";

export const projectOperations = {
  create: defineOperation({
    operationId: "createProject",
    access: "signed-in",
    tags,
    summary: "Create a project",
    description:
      "With `organizationId` the caller needs can_manage_projects there. " +
      `A user owns at most ${MAX_OWNED_PROJECTS} projects: the next is 409 CONFLICT until one is deleted.`,
    method: "post",
    path: "/projects",
    status: 201,
    body: projectCreateSchema,
    output: projectSchema,
    outputDescription: "Created",
    responses: { ...authedErrors, 409: conflict(`CONFLICT: ${MAX_OWNED_PROJECTS} projects owned already`) },
    handle: ({ ctx, actor, input }) => createProject({ deps: ctx.deps, actor, input }),
  }),
  list: defineOperation({
    operationId: "listProjects",
    access: "signed-in",
    tags,
    summary: "Projects the caller owns or belongs to",
    description: `Whole, oldest first: a user owns at most ${MAX_OWNED_PROJECTS} projects and belongs to at most ${MAX_PROJECT_MEMBERSHIPS} more.`,
    method: "get",
    path: "/projects",
    status: 200,
    output: wholeList(projectSchema),
    outputDescription: "Projects",
    responses: authedErrors,
    handle: ({ ctx, actor }) => listProjects({ deps: ctx.deps, actor }),
  }),
  get: defineOperation({
    operationId: "getProject",
    access: "signed-in",
    tags,
    summary: "One project",
    description: access,
    method: "get",
    path: "/projects/{id}",
    status: 200,
    params,
    output: projectSchema,
    outputDescription: "The project",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getProject({ deps: ctx.deps, actor, projectId: input.id }),
  }),
  update: defineOperation({
    operationId: "updateProject",
    access: "signed-in",
    tags,
    summary: "Update name, status or frame grading",
    description:
      `${access} \`frameGrading\` names the checks to change (the others stay); a change grades the project's analysed frames again ` +
      "from what their analysis measured, in the same write, so the answer's grading and the frames' grades agree. Out of bounds: 400 " +
      "VALIDATION_FAILED naming the field (`frameGrading.minStars`).",
    method: "put",
    path: "/projects/{id}",
    status: 200,
    params,
    body: projectUpdateSchema,
    bodyKey: "update",
    output: projectSchema,
    outputDescription: "Updated",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => updateProject({ deps: ctx.deps, actor, projectId: input.id, input: input.update }),
  }),
  members: defineOperation({
    operationId: "listProjectMembers",
    access: "signed-in",
    tags,
    summary: "Members, the owner first",
    description: `All of them: a project has at most ${MAX_PROJECT_MEMBERS} members beside its owner, so the list is whole and \`nextCursor\` is null.`,
    method: "get",
    path: "/projects/{id}/members",
    status: 200,
    params,
    output: wholeList(projectMemberSchema),
    outputDescription: "Members",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listProjectMembers({ deps: ctx.deps, actor, projectId: input.id }),
  }),
  addMember: defineOperation({
    operationId: "addProjectMember",
    access: "signed-in",
    tags,
    summary: "Add a member by exact email",
    description: access,
    method: "post",
    path: "/projects/{id}/members",
    status: 201,
    params,
    body: addProjectMemberSchema,
    output: projectMemberSchema,
    outputDescription: "Added",
    responses: {
      ...authedErrors,
      404: problemResponseFor("No such user (USER_NOT_FOUND) or project (NOT_FOUND)"),
      409: conflict(
        `ALREADY_MEMBER; CONFLICT when the project has ${MAX_PROJECT_MEMBERS} members or the user already belongs to ` +
          `${MAX_PROJECT_MEMBERSHIPS} projects (nothing is stored; an accepted invitation is refused the same way)`,
      ),
    },
    handle: ({ ctx, actor, input }) => addProjectMember({ deps: ctx.deps, actor, projectId: input.id, email: input.email, role: input.role }),
  }),
  removeMember: defineOperation({
    operationId: "removeProjectMember",
    access: "signed-in",
    tags,
    summary: "Remove a member, or leave (yourself)",
    method: "delete",
    path: "/projects/{id}/members/{userId}",
    status: 204,
    params: memberParams,
    outputDescription: "Removed",
    responses: { ...authedErrors, 409: conflict("OWNER_CANNOT_BE_REMOVED") },
    handle: ({ ctx, actor, input }) => removeProjectMember({ deps: ctx.deps, actor, projectId: input.id, userId: input.userId }),
  }),
  updateMember: defineOperation({
    operationId: "updateProjectMember",
    access: "signed-in",
    tags,
    summary: "Change a member's role",
    description:
      "The owner, project admins, organization managers and server admins. The owner's role is fixed (409 OWNER_ROLE_FIXED); transfer the project instead.",
    method: "put",
    path: "/projects/{id}/members/{userId}",
    status: 200,
    params: memberParams,
    body: updateProjectMemberSchema,
    output: projectMemberSchema,
    outputDescription: "Updated",
    responses: { ...authedErrors, 409: conflict("OWNER_ROLE_FIXED") },
    handle: ({ ctx, actor, input }) => updateProjectMemberRole({ deps: ctx.deps, actor, projectId: input.id, userId: input.userId, role: input.role }),
  }),
  delete: defineOperation({
    operationId: "deleteProject",
    access: "signed-in",
    tags,
    summary: "Delete an archived project",
    description:
      "The owner (or a server admin) only; other members get 403. The project must be archived " +
      "first (409 PROJECT_NOT_ARCHIVED). Its memberships go with it, its active announcements " +
      "are cancelled, and its acknowledged ones stop showing (their expiry set to that moment).",
    method: "delete",
    path: "/projects/{id}",
    status: 204,
    params,
    outputDescription: "Deleted",
    responses: { ...authedErrors, 409: conflict("PROJECT_NOT_ARCHIVED") },
    handle: ({ ctx, actor, input }) => deleteProject({ deps: ctx.deps, actor, projectId: input.id }),
  }),
  ...projectUsageOperations,
};
