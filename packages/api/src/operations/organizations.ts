import { z } from "@hono/zod-openapi";
import {
  addOrganizationMember,
  addOrganizationMemberSchema,
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizationAudit,
  listOrganizationMembers,
  listOrganizations,
  MAX_ORGANIZATION_MEMBERS,
  MAX_ORGANIZATION_MEMBERSHIPS,
  MAX_OWNED_ORGANIZATIONS,
  organizationCreateSchema,
  organizationMemberSchema,
  organizationDetailSchema,
  organizationSchema,
  organizationUpdateSchema,
  removeOrganizationMember,
  transferOrganizationOwnership,
  transferOrganizationSchema,
  updateOrganization,
  updateOrganizationMember,
  updateOrganizationMemberSchema,
} from "@meridian/domain/organizations";
import { withoutControlCharacters } from "@meridian/domain/users";
import { auditPageSchema } from "../http/audit-schema";
import { defineOperation } from "./define-operation";
import { authedErrors, conflict, idParam, pageQuery, problemResponseFor, wholeList } from "./responses";

const tags = ["Organizations"];
const userNotFound = problemResponseFor("No such user (USER_NOT_FOUND) or organization (NOT_FOUND)");
const params = z.object({ id: idParam });
const memberParams = z.object({ id: idParam, userId: idParam });
/** A query string says "true"; a tRPC input may say `true`. */
const trueOrFalse = z.preprocess((value) => (typeof value === "boolean" ? String(value) : value), z.enum(["true", "false"]));

export const organizationOperations = {
  list: defineOperation({
    operationId: "listOrganizations",
    access: "signed-in",
    tags,
    summary: "The caller's organizations, or every organization (server admins)",
    description:
      `The caller's organizations, all of them, by short name: a user belongs to at most ${MAX_ORGANIZATION_MEMBERSHIPS} organizations ` +
      "(owned ones included), so the list is whole and `nextCursor` is null; `limit` and `cursor` are accepted, as by every list, " +
      "and play no part (a malformed `limit` is still 400 VALIDATION_FAILED). " +
      "Server admins may pass `all=true` for every organization on the server, by short name, in cursor pages of `limit` (default 50, " +
      "at most 200): `nextCursor` is set while more remain. Anyone else asking for `all=true` is 403 FORBIDDEN. " +
      "`q` keeps, in either list, the organizations whose name or short name contains it, case-insensitively.",
    method: "get",
    path: "/organizations",
    status: 200,
    query: pageQuery.extend({
      all: trueOrFalse.optional().describe("`true`: every organization on the server, paged (server admins only)"),
      q: withoutControlCharacters(z.string().trim().max(200)).optional().describe("Case-insensitive part of the name or short name"),
    }),
    trpcInputOptional: true,
    output: z.object({ items: z.array(organizationSchema), nextCursor: z.string().nullable() }),
    outputDescription: "Organizations: the caller's whole, or a page of every one",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      listOrganizations({ deps: ctx.deps, actor, all: input.all === "true", q: input.q, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  create: defineOperation({
    operationId: "createOrganization",
    access: "signed-in",
    tags,
    summary: "Create an organization (the caller becomes owner)",
    description:
      `A user owns at most ${MAX_OWNED_ORGANIZATIONS} organizations (created or handed over to them): the next is 409 CONFLICT ` +
      `until one is deleted or transferred. The creator becomes a member, and a user belongs to at most ${MAX_ORGANIZATION_MEMBERSHIPS} ` +
      "organizations: past that, 409 CONFLICT too.",
    method: "post",
    path: "/organizations",
    status: 201,
    body: organizationCreateSchema,
    output: organizationSchema,
    outputDescription: "Created",
    responses: {
      ...authedErrors,
      409: conflict(
        `SHORT_NAME_TAKEN, case-insensitive; CONFLICT when the caller owns ${MAX_OWNED_ORGANIZATIONS} organizations ` +
          `or belongs to ${MAX_ORGANIZATION_MEMBERSHIPS} already`,
      ),
    },
    handle: ({ ctx, actor, input }) => createOrganization({ deps: ctx.deps, actor, input }),
  }),
  get: defineOperation({
    operationId: "getOrganization",
    access: "signed-in",
    tags,
    summary: "One organization (members and server admins)",
    method: "get",
    path: "/organizations/{id}",
    status: 200,
    params,
    output: organizationDetailSchema,
    outputDescription: "The organization, with the caller's myRole and myPermissions",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getOrganization({ deps: ctx.deps, actor, organizationId: input.id }),
  }),
  update: defineOperation({
    operationId: "updateOrganization",
    access: "signed-in",
    tags,
    summary: "Update an organization (partial)",
    description:
      "The owner (or a server admin) changes any field; a member with can_manage_storage may send only `externalStorage`. " +
      "`externalStorage` replaces the list: keep a destination by sending its `id`; its settings and its secrets stay unless new " +
      "`settings` or `secrets` are sent. Secrets are write-only. What a destination holds depends on its `kind`: `s3` settings " +
      '`{endpoint?, region, bucket, prefix?, forcePathStyle?}` (`endpoint` an http(s) URL, `forcePathStyle` a boolean or "true" / ' +
      '"false") with secrets `{accessKeyId, secretAccessKey}`; `dropbox` `{folder}` with `{refreshToken, appKey, appSecret}`; ' +
      "`google_drive` `{folderId}` with `{refreshToken, clientId, clientSecret}`. Settings sent must hold every required key, " +
      "non-empty; secrets sent replace every stored one, so each of the kind's is required, non-empty; unknown keys are refused. " +
      "A new destination (no `id`) and one whose `kind` changes need both `settings` and `secrets`. A destination sent back by `id` " +
      "with its kind and without `settings` or `secrets` keeps what it has, unchecked. Each refusal is 400 VALIDATION_FAILED naming " +
      "the field, e.g. `externalStorage.0.settings.bucket`, `externalStorage.1.secrets` (over tRPC the input's checks are named " +
      "under `update.`), and `externalStorage.N.id` for an id that is not one of the organization's destinations.",
    method: "put",
    path: "/organizations/{id}",
    status: 200,
    params,
    body: organizationUpdateSchema,
    bodyKey: "update",
    output: organizationSchema,
    outputDescription: "Updated",
    responses: { ...authedErrors, 409: conflict("SHORT_NAME_TAKEN") },
    handle: ({ ctx, actor, input }) => updateOrganization({ deps: ctx.deps, actor, organizationId: input.id, input: input.update }),
  }),
  members: defineOperation({
    operationId: "listOrganizationMembers",
    access: "signed-in",
    tags,
    summary: "Members",
    description: `All of them, oldest first: an organization has at most ${MAX_ORGANIZATION_MEMBERS} members, so the list is whole and \`nextCursor\` is null.`,
    method: "get",
    path: "/organizations/{id}/members",
    status: 200,
    params,
    output: wholeList(organizationMemberSchema),
    outputDescription: "Members",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listOrganizationMembers({ deps: ctx.deps, actor, organizationId: input.id }),
  }),
  addMember: defineOperation({
    operationId: "addOrganizationMember",
    access: "signed-in",
    tags,
    summary: "Add a member by exact email (needs can_manage_members)",
    description:
      "Permissions left out are false. The email must match exactly (case-insensitive); there is no partial search. " +
      `An organization has at most ${MAX_ORGANIZATION_MEMBERS} members and a user belongs to at most ${MAX_ORGANIZATION_MEMBERSHIPS} ` +
      "organizations: past either, 409 CONFLICT and nothing is stored (an accepted invitation is refused the same way).",
    method: "post",
    path: "/organizations/{id}/members",
    status: 201,
    params,
    body: addOrganizationMemberSchema,
    output: organizationMemberSchema,
    outputDescription: "Added",
    responses: {
      ...authedErrors,
      404: userNotFound,
      409: conflict(
        `ALREADY_MEMBER; CONFLICT when the organization has ${MAX_ORGANIZATION_MEMBERS} members or the user belongs to ` +
          `${MAX_ORGANIZATION_MEMBERSHIPS} organizations already`,
      ),
    },
    handle: ({ ctx, actor, input }) =>
      addOrganizationMember({ deps: ctx.deps, actor, organizationId: input.id, email: input.email, permissions: input.permissions }),
  }),
  updateMember: defineOperation({
    operationId: "updateOrganizationMember",
    access: "signed-in",
    tags,
    summary: "Change a member's permissions (needs can_manage_members)",
    method: "put",
    path: "/organizations/{id}/members/{userId}",
    status: 200,
    params: memberParams,
    body: updateOrganizationMemberSchema,
    output: organizationMemberSchema,
    outputDescription: "Updated",
    responses: { ...authedErrors, 409: conflict("OWNER_PERMISSIONS_FIXED") },
    handle: ({ ctx, actor, input }) =>
      updateOrganizationMember({ deps: ctx.deps, actor, organizationId: input.id, userId: input.userId, permissions: input.permissions }),
  }),
  removeMember: defineOperation({
    operationId: "removeOrganizationMember",
    access: "signed-in",
    tags,
    summary: "Remove a member (can_manage_members), or leave (yourself)",
    method: "delete",
    path: "/organizations/{id}/members/{userId}",
    status: 204,
    params: memberParams,
    outputDescription: "Removed",
    responses: { ...authedErrors, 409: conflict("OWNER_CANNOT_BE_REMOVED") },
    handle: ({ ctx, actor, input }) => removeOrganizationMember({ deps: ctx.deps, actor, organizationId: input.id, userId: input.userId }),
  }),
  transferOwnership: defineOperation({
    operationId: "transferOrganizationOwnership",
    access: "signed-in",
    tags,
    summary: "Transfer ownership to a current member (owner only)",
    description:
      `A user owns at most ${MAX_OWNED_ORGANIZATIONS} organizations: a transfer to a member who owns as many already is ` +
      "409 CONFLICT, and nothing changes. The previous owner stays a member; one without a membership (data from before owners " +
      `were always members) is added back within the caps, and when the organization holds ${MAX_ORGANIZATION_MEMBERS} members or the previous ` +
      `owner belongs to ${MAX_ORGANIZATION_MEMBERSHIPS} organizations already, the transfer is 409 CONFLICT too.`,
    method: "post",
    path: "/organizations/{id}/transfer-ownership",
    status: 200,
    params,
    body: transferOrganizationSchema,
    output: organizationSchema,
    outputDescription: "Transferred; the previous owner stays a member with every permission",
    responses: { ...authedErrors, 409: conflict(`NOT_A_MEMBER; CONFLICT when the member owns ${MAX_OWNED_ORGANIZATIONS} organizations already`) },
    handle: ({ ctx, actor, input }) => transferOrganizationOwnership({ deps: ctx.deps, actor, organizationId: input.id, userId: input.userId }),
  }),
  audit: defineOperation({
    operationId: "listOrganizationAudit",
    access: "signed-in",
    tags,
    summary: "Audit log of the organization (owner and can_manage_members)",
    description: "Newest first. Entries are kept `AUDIT_LOG_KEEP_DAYS` (365 unless set); a daily job removes older ones.",
    method: "get",
    path: "/organizations/{id}/audit",
    status: 200,
    params,
    query: pageQuery,
    output: auditPageSchema,
    outputDescription: "Entries, newest first",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      listOrganizationAudit({ deps: ctx.deps, actor, organizationId: input.id, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  delete: defineOperation({
    operationId: "deleteOrganization",
    access: "signed-in",
    tags,
    summary: "Delete an organization (owner only)",
    description:
      "The owner (or a server admin); members get 403. Refused with 409 ORGANIZATION_NOT_EMPTY, " +
      "whose detail names them, while it owns observatories or projects. " +
      "Its memberships in other observatories end (recorded in their history), its members are " +
      "told over the WebSocket, its active announcements are cancelled, and its acknowledged ones stop showing " +
      "(their expiry set to that moment).",
    method: "delete",
    path: "/organizations/{id}",
    status: 204,
    params,
    outputDescription: "Deleted",
    responses: { ...authedErrors, 409: conflict("ORGANIZATION_NOT_EMPTY") },
    handle: ({ ctx, actor, input }) => deleteOrganization({ deps: ctx.deps, actor, organizationId: input.id }),
  }),
};
