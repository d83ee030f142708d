import { createRoute, z } from "@hono/zod-openapi";
import {
  addOrganizationMember,
  addOrganizationMemberSchema,
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizationAudit,
  listOrganizationMembers,
  listOrganizations,
  organizationCreateSchema,
  organizationMemberSchema,
  organizationSchema,
  organizationUpdateSchema,
  removeOrganizationMember,
  transferOrganizationOwnership,
  transferOrganizationSchema,
  updateOrganization,
  updateOrganizationMember,
  updateOrganizationMemberSchema,
} from "@meridian/domain";
import { actorOf } from "../caller";
import { problemResponseFor } from "../openapi-shared";
import { createRouter } from "../env";
import { auditPageSchema } from "../audit-schema";
import { authedRoute, conflict, idParam, jsonBody, jsonResponse, pageQuery } from "../route-helpers";

const tags = ["Organizations"];
const userNotFound = problemResponseFor("No such user (USER_NOT_FOUND) or organization (NOT_FOUND)");
const orgParams = z.object({ id: idParam });
const memberParams = z.object({ id: idParam, userId: idParam });

export const organizationRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/organizations",
      tags,
      summary: "The caller's organizations",
      description: "Server admins may pass `all=true` for every organization.",
      request: { query: z.object({ all: z.enum(["true", "false"]).optional() }) },
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(organizationSchema), nextCursor: z.null() }), "Organizations") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await listOrganizations({ deps, actor, all: c.req.valid("query").all === "true" }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/organizations",
      tags,
      summary: "Create an organization (the caller becomes owner)",
      request: { body: jsonBody(organizationCreateSchema) },
      ...authedRoute({ 201: jsonResponse(organizationSchema, "Created"), 409: conflict("SHORT_NAME_TAKEN, case-insensitive") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await createOrganization({ deps, actor, input: c.req.valid("json") }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/organizations/{id}",
      tags,
      summary: "One organization (members and server admins)",
      request: { params: orgParams },
      ...authedRoute({ 200: jsonResponse(organizationSchema, "The organization, with the caller's myRole and myPermissions") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await getOrganization({ deps, actor, organizationId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/organizations/{id}",
      tags,
      summary: "Update an organization (partial)",
      description:
        "The owner (or a server admin) changes any field; a member with can_manage_storage may send only `externalStorage`. " +
        "`externalStorage` replaces the list: keep a destination by sending its `id`; its secrets stay unless new `secrets` are sent. Secrets are write-only.",
      request: { params: orgParams, body: jsonBody(organizationUpdateSchema) },
      ...authedRoute({ 200: jsonResponse(organizationSchema, "Updated"), 409: conflict("SHORT_NAME_TAKEN") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await updateOrganization({ deps, actor, organizationId: c.req.valid("param").id, input: c.req.valid("json") }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/organizations/{id}/members",
      tags,
      summary: "Members",
      request: { params: orgParams },
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(organizationMemberSchema), nextCursor: z.null() }), "Members") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await listOrganizationMembers({ deps, actor, organizationId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/organizations/{id}/members",
      tags,
      summary: "Add a member by exact email (needs can_manage_members)",
      description: "Permissions left out are false. The email must match exactly (case-insensitive); there is no partial search.",
      request: { params: orgParams, body: jsonBody(addOrganizationMemberSchema) },
      ...authedRoute({ 201: jsonResponse(organizationMemberSchema, "Added"), 404: userNotFound, 409: conflict("ALREADY_MEMBER") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const body = c.req.valid("json");
      return c.json(await addOrganizationMember({ deps, actor, organizationId: c.req.valid("param").id, email: body.email, permissions: body.permissions }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/organizations/{id}/members/{userId}",
      tags,
      summary: "Change a member's permissions (needs can_manage_members)",
      request: { params: memberParams, body: jsonBody(updateOrganizationMemberSchema) },
      ...authedRoute({ 200: jsonResponse(organizationMemberSchema, "Updated"), 409: conflict("OWNER_PERMISSIONS_FIXED") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, userId } = c.req.valid("param");
      return c.json(await updateOrganizationMember({ deps, actor, organizationId: id, userId, permissions: c.req.valid("json").permissions }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/organizations/{id}/members/{userId}",
      tags,
      summary: "Remove a member (can_manage_members), or leave (yourself)",
      request: { params: memberParams },
      ...authedRoute({ 204: { description: "Removed" }, 409: conflict("OWNER_CANNOT_BE_REMOVED") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { id, userId } = c.req.valid("param");
      await removeOrganizationMember({ deps, actor, organizationId: id, userId });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/organizations/{id}/transfer-ownership",
      tags,
      summary: "Transfer ownership to a current member (owner only)",
      request: { params: orgParams, body: jsonBody(transferOrganizationSchema) },
      ...authedRoute({ 200: jsonResponse(organizationSchema, "Transferred; the previous owner stays a member with every permission"), 409: conflict("NOT_A_MEMBER") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await transferOrganizationOwnership({ deps, actor, organizationId: c.req.valid("param").id, userId: c.req.valid("json").userId }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/organizations/{id}/audit",
      tags,
      summary: "Audit log of the organization (owner and can_manage_members)",
      request: { params: orgParams, query: pageQuery },
      ...authedRoute({ 200: jsonResponse(auditPageSchema, "Entries, newest first") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const query = c.req.valid("query");
      return c.json(await listOrganizationAudit({ deps, actor, organizationId: c.req.valid("param").id, limit: query.limit ?? 50, cursor: query.cursor }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/organizations/{id}",
      tags,
      summary: "Delete an organization (owner only)",
      description:
        "The owner (or a server admin); members get 403. Refused with 409 ORGANIZATION_NOT_EMPTY, whose detail names them, while it owns observatories or projects. " +
        "Its memberships in other observatories end (recorded in their history), its members are told over the WebSocket, and its active announcements are cancelled.",
      request: { params: orgParams },
      ...authedRoute({ 204: { description: "Deleted" }, 409: conflict("ORGANIZATION_NOT_EMPTY") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      await deleteOrganization({ deps, actor, organizationId: c.req.valid("param").id });
      return c.body(null, 204);
    },
  );
