import { z } from "@hono/zod-openapi";
import {
  createObservatory,
  getMyObservatoryPermissions,
  getObservatory,
  listObservatories,
  listObservatoryHistory,
  MAX_ORGANIZATION_OBSERVATORIES,
  MAX_OWNED_OBSERVATORIES,
  myObservatoryPermissionsSchema,
  observatoryCreateSchema,
  observatoryHistorySchema,
  observatorySchema,
  observatoryTransferSchema,
  observatoryUpdateSchema,
  transferObservatoryOwnership,
  updateObservatory,
} from "@meridian/domain/observatories";
import { defineOperation } from "./define-operation";
import { observatoryPlanOperations } from "./night-plan";
import { observatoryDispatchOperations } from "./observatory-dispatch";
import { observatoryMemberOperations } from "./observatory-members";
import { observatoryRemovalOperations } from "./observatory-removal";
import { allocationOperations } from "./allocations";
import { authedErrors, conflict, idParam, pageQuery } from "./responses";

const observatoryTags = ["Observatories"];
const tags = observatoryTags;
const params = z.object({ id: idParam });
const permissionNote =
  "Effective permissions are ordered: can_admin implies can_operate, which implies can_observe, which implies can_view. " +
  "Through a member organization a user gets what their role there inherits (owner/admin: " +
  "can_admin + can_operate; member: can_view + can_observe), capped by the organization's " +
  "grant.";

const observatorySettingsOperations = {
  create: defineOperation({
    operationId: "createObservatory",
    access: "signed-in",
    tags,
    summary: "Create an observatory",
    description:
      "Owned by the caller, or by `organizationId` (needs can_manage_observatories there), which then is a member with every permission. " +
      "Also takes (extension) what `PUT /observatories/{id}` takes: `location`, `dispatchEnabled`, `timeZone` (derived from the location " +
      "when not given, else UTC) and `settings`. " +
      `A user owns at most ${MAX_OWNED_OBSERVATORIES} observatories and an organization at most ${MAX_ORGANIZATION_OBSERVATORIES} ` +
      "(removed ones do not count): the next is 409 CONFLICT until one is removed or transferred.",
    method: "post",
    path: "/observatories",
    status: 201,
    body: observatoryCreateSchema,
    output: observatorySchema,
    outputDescription: "Created",
    responses: { ...authedErrors, 409: conflict("CONFLICT: the new owner owns as many observatories as it may already") },
    handle: ({ ctx, actor, input }) => createObservatory({ deps: ctx.deps, actor, input }),
  }),
  list: defineOperation({
    operationId: "listObservatories",
    access: "signed-in",
    tags,
    summary: "Observatories the caller can view",
    description: `Each item carries the caller's effective permissions (myPermissions). ${permissionNote}`,
    method: "get",
    path: "/observatories",
    status: 200,
    query: pageQuery,
    trpcInputOptional: true,
    output: z.object({ items: z.array(observatorySchema), nextCursor: z.string().nullable() }),
    outputDescription: "A page of observatories",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listObservatories({ deps: ctx.deps, actor, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  get: defineOperation({
    operationId: "getObservatory",
    access: "signed-in",
    tags,
    summary: "One observatory (can_view)",
    method: "get",
    path: "/observatories/{id}",
    status: 200,
    params,
    output: observatorySchema,
    outputDescription: "The observatory",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservatory({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  update: defineOperation({
    operationId: "updateObservatory",
    access: "signed-in",
    tags,
    summary: "Change name, location, dispatch, time zone or timing settings (can_admin)",
    description:
      "Partial: absent fields keep their value; `location: null` clears it. `timeZone` is an IANA name (400 VALIDATION_FAILED " +
      "otherwise); when the location moves and no zone is given, the zone is derived from the new location (tz-lookup), UTC " +
      "without one; `timeZone: null` derives it again (extension). `settings.slewSeconds` (0–3600, default 120) and " +
      "`settings.readoutSeconds` (0–600, default 10) set what the `estimatedSeconds` of its observations assume, read with the " +
      "settings as they are. Each change is recorded in the history as `settings_changed` with the before and after values.",
    method: "put",
    path: "/observatories/{id}",
    status: 200,
    params,
    body: observatoryUpdateSchema,
    bodyKey: "update",
    output: observatorySchema,
    outputDescription: "Updated",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => updateObservatory({ deps: ctx.deps, actor, observatoryId: input.id, input: input.update }),
  }),
  transferOwnership: defineOperation({
    operationId: "transferObservatoryOwnership",
    access: "signed-in",
    tags,
    summary: "Transfer ownership (owner, the owning organization's owner, or a server admin)",
    description:
      "To a user who is a member (409 NOT_A_MEMBER otherwise), or to an organization, which " +
      "becomes a member with every permission. The previous owner keeps full access as a member. " +
      `A user owns at most ${MAX_OWNED_OBSERVATORIES} observatories and an organization at most ${MAX_ORGANIZATION_OBSERVATORIES} ` +
      "(removed ones do not count): a transfer to one that owns as many already is 409 CONFLICT, and nothing changes.",
    method: "post",
    path: "/observatories/{id}/transfer-ownership",
    status: 200,
    params,
    body: observatoryTransferSchema,
    bodyKey: "to",
    output: observatorySchema,
    outputDescription: "Transferred",
    responses: { ...authedErrors, 409: conflict("NOT_A_MEMBER; CONFLICT when the new owner owns as many observatories as it may already") },
    handle: ({ ctx, actor, input }) => transferObservatoryOwnership({ deps: ctx.deps, actor, observatoryId: input.id, to: input.to }),
  }),
  myPermissions: defineOperation({
    operationId: "getMyObservatoryPermissions",
    access: "signed-in",
    tags,
    summary: "The caller's effective permissions and where they come from",
    description: permissionNote,
    method: "get",
    path: "/observatories/{id}/permissions/me",
    status: 200,
    params,
    output: myObservatoryPermissionsSchema,
    outputDescription: "Effective permissions",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getMyObservatoryPermissions({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  history: defineOperation({
    operationId: "listObservatoryHistory",
    access: "signed-in",
    tags,
    summary: "History, newest first (can_view)",
    description:
      "The newest `OBSERVATORY_HISTORY_KEEP` entries (100,000 by default) are kept; a daily job removes older ones. " +
      'Besides the contract\'s types, `observation_reassigned` `{observationId, reason: "observatory unavailable", unavailable, since}` ' +
      "records an observation the failover took back from this observatory after it had been offline, unsafe or under a weather hold " +
      "(`unavailable`: which of them) since `since` for `REASSIGN_AFTER_MINUTES`; its plugin is sent `cancel` for it.",
    method: "get",
    path: "/observatories/{id}/history",
    status: 200,
    params,
    query: pageQuery,
    output: observatoryHistorySchema,
    outputDescription: "History",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      listObservatoryHistory({ deps: ctx.deps, actor, observatoryId: input.id, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
};

/** Observatories, their settings, ownership and members (tRPC `observatories.*`). */
export const observatoryOperations = {
  ...observatorySettingsOperations,
  ...observatoryMemberOperations,
  ...observatoryDispatchOperations,
  ...observatoryPlanOperations,
  ...observatoryRemovalOperations,
  ...allocationOperations,
};
