import { z } from "@hono/zod-openapi";
import {
  addObservatoryOrganization,
  addObservatoryOrganizationSchema,
  addObservatoryUser,
  addObservatoryUserSchema,
  listObservatoryMembers,
  MAX_OBSERVATORY_ORGANIZATION_MEMBERS,
  MAX_OBSERVATORY_USER_MEMBERS,
  observatoryMembersSchema,
  observatoryPermissionsOutputSchema,
  removeObservatoryOrganization,
  removeObservatoryUser,
  updateObservatoryOrganization,
  updateObservatoryPermissionsSchema,
  updateObservatoryUser,
} from "@meridian/domain/observatories";
import { defineOperation } from "./define-operation";
import { authedErrors, conflict, idParam, problemResponseFor } from "./responses";

const tags = ["Observatories"];
const params = z.object({ id: idParam });
const userParams = z.object({ id: idParam, userId: idParam });
const orgParams = z.object({ id: idParam, orgId: idParam });
const userNotFound = problemResponseFor("No such user (USER_NOT_FOUND) or observatory (NOT_FOUND)");
const userMemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  permissions: observatoryPermissionsOutputSchema,
  source: z.enum(["direct", "owner"]),
});
const orgMemberSchema = z.object({ organizationId: z.string(), name: z.string(), permissions: observatoryPermissionsOutputSchema, owning: z.boolean() });

export const observatoryMemberOperations = {
  members: defineOperation({
    operationId: "listObservatoryMembers",
    access: "signed-in",
    tags,
    summary: "Members: users and organizations (can_view)",
    description:
      `All of them, oldest first: an observatory has at most ${MAX_OBSERVATORY_USER_MEMBERS} direct user members (its owning user ` +
      `is listed first, beside them) and at most ${MAX_OBSERVATORY_ORGANIZATION_MEMBERS} member organizations, so both lists are whole.`,
    method: "get",
    path: "/observatories/{id}/members",
    status: 200,
    params,
    output: observatoryMembersSchema,
    outputDescription: "Members",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listObservatoryMembers({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  addUser: defineOperation({
    operationId: "addObservatoryUser",
    access: "signed-in",
    tags,
    summary: "Add a user by exact email (can_admin)",
    description:
      "Permissions left out default to can_view only. " +
      `An observatory has at most ${MAX_OBSERVATORY_USER_MEMBERS} direct user members: the next is 409 CONFLICT and nothing is stored ` +
      "(an accepted invitation is refused the same way).",
    method: "post",
    path: "/observatories/{id}/members",
    status: 201,
    params,
    body: addObservatoryUserSchema,
    output: userMemberSchema,
    outputDescription: "Added",
    responses: {
      ...authedErrors,
      404: userNotFound,
      409: conflict(`ALREADY_MEMBER; CONFLICT when it has ${MAX_OBSERVATORY_USER_MEMBERS} user members already`),
    },
    handle: ({ ctx, actor, input }) =>
      addObservatoryUser({ deps: ctx.deps, actor, observatoryId: input.id, email: input.email, permissions: input.permissions }),
  }),
  updateUser: defineOperation({
    operationId: "updateObservatoryUser",
    access: "signed-in",
    tags,
    summary: "Change a user's permissions (can_admin)",
    method: "put",
    path: "/observatories/{id}/members/{userId}",
    status: 200,
    params: userParams,
    body: updateObservatoryPermissionsSchema,
    output: userMemberSchema,
    outputDescription: "Updated",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      updateObservatoryUser({ deps: ctx.deps, actor, observatoryId: input.id, userId: input.userId, permissions: input.permissions }),
  }),
  removeUser: defineOperation({
    operationId: "removeObservatoryUser",
    access: "signed-in",
    tags,
    summary: "Remove a user (can_admin), or leave (yourself)",
    method: "delete",
    path: "/observatories/{id}/members/{userId}",
    status: 204,
    params: userParams,
    outputDescription: "Removed",
    responses: { ...authedErrors, 409: conflict("OWNER_CANNOT_BE_REMOVED for the owning user") },
    handle: ({ ctx, actor, input }) => removeObservatoryUser({ deps: ctx.deps, actor, observatoryId: input.id, userId: input.userId }),
  }),
  addOrganization: defineOperation({
    operationId: "addObservatoryOrganization",
    access: "signed-in",
    tags,
    summary: "Add an organization as member (can_admin)",
    description:
      "Permissions left out default to can_view only. Recorded in the history as organization_added. " +
      `An observatory has at most ${MAX_OBSERVATORY_ORGANIZATION_MEMBERS} member organizations: the next is 409 CONFLICT and nothing is stored.`,
    method: "post",
    path: "/observatories/{id}/members/organization",
    status: 201,
    params,
    body: addObservatoryOrganizationSchema,
    output: orgMemberSchema,
    outputDescription: "Added",
    responses: {
      ...authedErrors,
      409: conflict(`ALREADY_MEMBER; CONFLICT when it has ${MAX_OBSERVATORY_ORGANIZATION_MEMBERS} member organizations already`),
    },
    handle: ({ ctx, actor, input }) =>
      addObservatoryOrganization({ deps: ctx.deps, actor, observatoryId: input.id, organizationId: input.organizationId, permissions: input.permissions }),
  }),
  updateOrganization: defineOperation({
    operationId: "updateObservatoryOrganization",
    access: "signed-in",
    tags,
    summary: "Change an organization's permissions (can_admin)",
    method: "put",
    path: "/observatories/{id}/members/organization/{orgId}",
    status: 200,
    params: orgParams,
    body: updateObservatoryPermissionsSchema,
    output: orgMemberSchema,
    outputDescription: "Updated",
    responses: { ...authedErrors, 409: conflict("OWNER_PERMISSIONS_FIXED for the owning organization") },
    handle: ({ ctx, actor, input }) =>
      updateObservatoryOrganization({ deps: ctx.deps, actor, observatoryId: input.id, organizationId: input.orgId, permissions: input.permissions }),
  }),
  removeOrganization: defineOperation({
    operationId: "removeObservatoryOrganization",
    access: "signed-in",
    tags,
    summary: "Remove an organization (can_admin)",
    method: "delete",
    path: "/observatories/{id}/members/organization/{orgId}",
    status: 204,
    params: orgParams,
    outputDescription: "Removed",
    responses: { ...authedErrors, 409: conflict("OWNING_ORGANIZATION_CANNOT_BE_REMOVED") },
    handle: ({ ctx, actor, input }) => removeObservatoryOrganization({ deps: ctx.deps, actor, observatoryId: input.id, organizationId: input.orgId }),
  }),
};
