import { createRoute, z } from "@hono/zod-openapi";
import {
  addProjectMember,
  addProjectMemberSchema,
  createProject,
  deleteProject,
  getProject,
  listProjectMembers,
  listProjects,
  projectCreateSchema,
  projectMemberSchema,
  projectSchema,
  projectUpdateSchema,
  removeProjectMember,
  updateProject,
  updateProjectMemberRole,
  updateProjectMemberSchema,
} from "@meridian/domain";
import { callerOf } from "../caller";
import { createRouter } from "../env";
import { problemResponseFor } from "../openapi-shared";
import { authedRoute, conflict, idParam, jsonBody, jsonResponse } from "../route-helpers";

const tags = ["Projects"];
const params = z.object({ id: idParam });
const memberParams = z.object({ id: idParam, userId: idParam });
const access =
  "Members read. The owner, project admins, and for an organization's project its owner and members with can_manage_projects manage. Server admins may do everything.";

export const projectRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/projects",
      tags,
      summary: "Create a project",
      description: "With `organizationId` the caller needs can_manage_projects there.",
      request: { body: jsonBody(projectCreateSchema) },
      ...authedRoute({ 201: jsonResponse(projectSchema, "Created") }),
    }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      return c.json(await createProject({ deps, caller, input: c.req.valid("json") }), 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/projects", tags, summary: "Projects the caller owns or belongs to", ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(projectSchema), nextCursor: z.null() }), "Projects") }) }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      return c.json(await listProjects({ deps, caller }), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/projects/{id}", tags, summary: "One project", description: access, request: { params }, ...authedRoute({ 200: jsonResponse(projectSchema, "The project") }) }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      return c.json(await getProject({ deps, caller, projectId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({ method: "put", path: "/projects/{id}", tags, summary: "Update name or status", description: access, request: { params, body: jsonBody(projectUpdateSchema) }, ...authedRoute({ 200: jsonResponse(projectSchema, "Updated") }) }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      return c.json(await updateProject({ deps, caller, projectId: c.req.valid("param").id, input: c.req.valid("json") }), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/projects/{id}/members", tags, summary: "Members, the owner first", request: { params }, ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(projectMemberSchema), nextCursor: z.null() }), "Members") }) }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      return c.json(await listProjectMembers({ deps, caller, projectId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/projects/{id}/members",
      tags,
      summary: "Add a member by exact email",
      description: access,
      request: { params, body: jsonBody(addProjectMemberSchema) },
      ...authedRoute({ 201: jsonResponse(projectMemberSchema, "Added"), 404: problemResponseFor("No such user (USER_NOT_FOUND) or project (NOT_FOUND)"), 409: conflict("ALREADY_MEMBER") }),
    }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      const body = c.req.valid("json");
      return c.json(await addProjectMember({ deps, caller, projectId: c.req.valid("param").id, email: body.email, role: body.role }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/projects/{id}/members/{userId}",
      tags,
      summary: "Remove a member, or leave (yourself)",
      request: { params: memberParams },
      ...authedRoute({ 204: { description: "Removed" }, 409: conflict("OWNER_CANNOT_BE_REMOVED") }),
    }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      const { id, userId } = c.req.valid("param");
      await removeProjectMember({ deps, caller, projectId: id, userId });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/projects/{id}/members/{userId}",
      tags,
      summary: "Change a member's role",
      description: "The owner, project admins, organization managers and server admins. The owner's role is fixed (409 OWNER_ROLE_FIXED); transfer the project instead.",
      request: { params: memberParams, body: jsonBody(updateProjectMemberSchema) },
      ...authedRoute({ 200: jsonResponse(projectMemberSchema, "Updated"), 409: conflict("OWNER_ROLE_FIXED") }),
    }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      const { id, userId } = c.req.valid("param");
      return c.json(await updateProjectMemberRole({ deps, caller, projectId: id, userId, role: c.req.valid("json").role }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/projects/{id}",
      tags,
      summary: "Delete an archived project",
      description:
        "The owner (or a server admin) only; other members get 403. The project must be archived first (409 PROJECT_NOT_ARCHIVED). Its memberships go with it and its active announcements are cancelled.",
      request: { params },
      ...authedRoute({ 204: { description: "Deleted" }, 409: conflict("PROJECT_NOT_ARCHIVED") }),
    }),
    async (c) => {
      const { caller, deps } = callerOf(c);
      await deleteProject({ deps, caller, projectId: c.req.valid("param").id });
      return c.body(null, 204);
    },
  );
