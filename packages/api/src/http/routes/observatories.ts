import { createRoute, z } from "@hono/zod-openapi";
import {
  addObservatoryOrganization,
  addObservatoryOrganizationSchema,
  addObservatoryUser,
  addObservatoryUserSchema,
  createObservatory,
  getMyObservatoryPermissions,
  getObservatory,
  listObservatories,
  listObservatoryHistory,
  listObservatoryMembers,
  myObservatoryPermissionsSchema,
  observatoryCreateSchema,
  observatoryHistorySchema,
  observatoryMembersSchema,
  observatoryPermissionsOutputSchema,
  observatorySchema,
  observatoryTransferSchema,
  observatoryUpdateSchema,
  removeObservatoryOrganization,
  removeObservatoryUser,
  transferObservatoryOwnership,
  updateObservatory,
  updateObservatoryOrganization,
  updateObservatoryPermissionsSchema,
  updateObservatoryUser,
} from "@meridian/domain";
import { actorOf } from "../caller";
import { createRouter } from "../env";
import { problemResponseFor } from "../openapi-shared";
import { authedRoute, conflict, idParam, jsonBody, jsonResponse, pageQuery } from "../route-helpers";

const tags = ["Observatories"];
const params = z.object({ id: idParam });
const userParams = z.object({ id: idParam, userId: idParam });
const orgParams = z.object({ id: idParam, orgId: idParam });
const userNotFound = problemResponseFor("No such user (USER_NOT_FOUND) or observatory (NOT_FOUND)");
const userMemberSchema = z.object({ userId: z.string(), email: z.string(), name: z.string(), permissions: observatoryPermissionsOutputSchema, source: z.enum(["direct", "owner"]) });
const orgMemberSchema = z.object({ organizationId: z.string(), name: z.string(), permissions: observatoryPermissionsOutputSchema, owning: z.boolean() });
const permissionNote =
  "Effective permissions are ordered: can_admin implies can_operate, which implies can_observe, which implies can_view. " +
  "Through a member organization a user gets what their role there inherits (owner/admin: can_admin + can_operate; member: can_view + can_observe), capped by the organization's grant.";

export const observatoryRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/observatories",
      tags,
      summary: "Create an observatory",
      description: "Owned by the caller, or by `organizationId` (needs can_manage_observatories there), which then is a member with every permission.",
      request: { body: jsonBody(observatoryCreateSchema) },
      ...authedRoute({ 201: jsonResponse(observatorySchema, "Created") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await createObservatory({ deps, actor, input: c.req.valid("json") }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/observatories",
      tags,
      summary: "Observatories the caller can view",
      description: `Each item carries the caller's effective permissions (myPermissions). ${permissionNote}`,
      request: { query: pageQuery },
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(observatorySchema), nextCursor: z.string().nullable() }), "A page of observatories") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const query = c.req.valid("query");
      return c.json(await listObservatories({ deps, actor, limit: query.limit ?? 50, cursor: query.cursor }), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/observatories/{id}", tags, summary: "One observatory (can_view)", request: { params }, ...authedRoute({ 200: jsonResponse(observatorySchema, "The observatory") }) }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await getObservatory({ deps, actor, observatoryId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/observatories/{id}",
      tags,
      summary: "Change name, location or dispatch (can_admin)",
      description: "Partial: absent fields keep their value; `location: null` clears it. Each change is recorded in the history as `settings_changed` with the before and after values.",
      request: { params, body: jsonBody(observatoryUpdateSchema) },
      ...authedRoute({ 200: jsonResponse(observatorySchema, "Updated") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await updateObservatory({ deps, actor, observatoryId: c.req.valid("param").id, input: c.req.valid("json") }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/observatories/{id}/transfer-ownership",
      tags,
      summary: "Transfer ownership (owner, the owning organization's owner, or a server admin)",
      description: "To a user who is a member (409 NOT_A_MEMBER otherwise), or to an organization, which becomes a member with every permission. The previous owner keeps full access as a member.",
      request: { params, body: jsonBody(observatoryTransferSchema) },
      ...authedRoute({ 200: jsonResponse(observatorySchema, "Transferred"), 409: conflict("NOT_A_MEMBER") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await transferObservatoryOwnership({ deps, actor, observatoryId: c.req.valid("param").id, to: c.req.valid("json") }), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/observatories/{id}/members", tags, summary: "Members: users and organizations (can_view)", request: { params }, ...authedRoute({ 200: jsonResponse(observatoryMembersSchema, "Members") }) }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await listObservatoryMembers({ deps, actor, observatoryId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/observatories/{id}/members",
      tags,
      summary: "Add a user by exact email (can_admin)",
      description: "Permissions left out default to can_view only.",
      request: { params, body: jsonBody(addObservatoryUserSchema) },
      ...authedRoute({ 201: jsonResponse(userMemberSchema, "Added"), 404: userNotFound, 409: conflict("ALREADY_MEMBER") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const body = c.req.valid("json");
      return c.json(await addObservatoryUser({ deps, actor, observatoryId: c.req.valid("param").id, email: body.email, permissions: body.permissions }), 201);
    },
  )
  .openapi(
    createRoute({ method: "put", path: "/observatories/{id}/members/{userId}", tags, summary: "Change a user's permissions (can_admin)", request: { params: userParams, body: jsonBody(updateObservatoryPermissionsSchema) }, ...authedRoute({ 200: jsonResponse(userMemberSchema, "Updated") }) }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, userId } = c.req.valid("param");
      return c.json(await updateObservatoryUser({ deps, actor, observatoryId: id, userId, permissions: c.req.valid("json").permissions }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/observatories/{id}/members/{userId}",
      tags,
      summary: "Remove a user (can_admin), or leave (yourself)",
      request: { params: userParams },
      ...authedRoute({ 204: { description: "Removed" }, 409: conflict("OWNER_CANNOT_BE_REMOVED for the owning user") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, userId } = c.req.valid("param");
      await removeObservatoryUser({ deps, actor, observatoryId: id, userId });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/observatories/{id}/members/organization",
      tags,
      summary: "Add an organization as member (can_admin)",
      description: "Permissions left out default to can_view only. Recorded in the history as organization_added.",
      request: { params, body: jsonBody(addObservatoryOrganizationSchema) },
      ...authedRoute({ 201: jsonResponse(orgMemberSchema, "Added"), 409: conflict("ALREADY_MEMBER") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const body = c.req.valid("json");
      return c.json(await addObservatoryOrganization({ deps, actor, observatoryId: c.req.valid("param").id, organizationId: body.organizationId, permissions: body.permissions }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/observatories/{id}/members/organization/{orgId}",
      tags,
      summary: "Change an organization's permissions (can_admin)",
      request: { params: orgParams, body: jsonBody(updateObservatoryPermissionsSchema) },
      ...authedRoute({ 200: jsonResponse(orgMemberSchema, "Updated"), 409: conflict("OWNER_PERMISSIONS_FIXED for the owning organization") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, orgId } = c.req.valid("param");
      return c.json(await updateObservatoryOrganization({ deps, actor, observatoryId: id, organizationId: orgId, permissions: c.req.valid("json").permissions }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/observatories/{id}/members/organization/{orgId}",
      tags,
      summary: "Remove an organization (can_admin)",
      request: { params: orgParams },
      ...authedRoute({ 204: { description: "Removed" }, 409: conflict("OWNING_ORGANIZATION_CANNOT_BE_REMOVED") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, orgId } = c.req.valid("param");
      await removeObservatoryOrganization({ deps, actor, observatoryId: id, organizationId: orgId });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/observatories/{id}/permissions/me",
      tags,
      summary: "The caller's effective permissions and where they come from",
      description: permissionNote,
      request: { params },
      ...authedRoute({ 200: jsonResponse(myObservatoryPermissionsSchema, "Effective permissions") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await getMyObservatoryPermissions({ deps, actor, observatoryId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/observatories/{id}/history", tags, summary: "History, newest first (can_view)", request: { params, query: pageQuery }, ...authedRoute({ 200: jsonResponse(observatoryHistorySchema, "History") }) }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const query = c.req.valid("query");
      return c.json(await listObservatoryHistory({ deps, actor, observatoryId: c.req.valid("param").id, limit: query.limit ?? 50, cursor: query.cursor }), 200);
    },
  );
