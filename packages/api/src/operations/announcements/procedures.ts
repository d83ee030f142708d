import { z } from "@hono/zod-openapi";
import {
  acknowledgeAnnouncement,
  acknowledgmentSchema,
  announcementListSchema,
  announcementSchema,
  recipientCountSchema,
  recipientsViewSchema,
  cancelAnnouncement,
  cancelAnnouncementSchema,
  createScopedAnnouncement,
  getAnnouncementRecipients,
  listQuerySchema,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  opaqueIdSchema,
  previewScopedRecipients,
  recipientsQuerySchema,
  scopedAnnouncementCreateSchema,
  scopedKindSchema,
  type AnnouncementScopeRef,
} from "@meridian/domain";
import { defineOperation } from "../define-operation";
import { tags } from "./shared";

const id = opaqueIdSchema;
/** `{scope: "system"}` or `{scope, scopeId}`: one procedure serves all four scopes. */
const scopeRefSchema = z.discriminatedUnion("scope", [
  z.strictObject({ scope: z.literal("system") }),
  z.strictObject({ scope: scopedKindSchema, scopeId: id }),
]);
const toRef = (ref: z.infer<typeof scopeRefSchema>): AnnouncementScopeRef =>
  ref.scope === "system" ? { scope: "system", scopeId: null } : { scope: ref.scope, scopeId: ref.scopeId };
const scoped = { scope: scopedKindSchema, scopeId: id };

/**
 * The SPA's procedures over the scope-specific REST paths: the scope is part of the input, so one
 * procedure does what the REST face spreads over /api/v1/system, /observatories, /organizations
 * and /projects. They call the same domain functions as those paths.
 */
export const scopeAnnouncementProcedures = {
  previewScoped: defineOperation({
    operationId: "previewScopedAnnouncementRecipients",
    access: "signed-in",
    tags,
    summary: "How many users an announcement of this scope would reach now",
    method: "get",
    query: z.strictObject(scoped),
    output: recipientCountSchema,
    handle: ({ ctx, actor, input }) => previewScopedRecipients({ deps: ctx.deps, actor, ref: { scope: input.scope, scopeId: input.scopeId } }),
  }),
  createScoped: defineOperation({
    operationId: "createScopedAnnouncement",
    access: "signed-in",
    tags,
    summary: "Create an announcement of an observatory, organization or project",
    method: "post",
    body: z.strictObject({ ...scoped, announcement: scopedAnnouncementCreateSchema }),
    output: announcementSchema,
    handle: ({ ctx, actor, input }) =>
      createScopedAnnouncement({ deps: ctx.deps, actor, ref: { scope: input.scope, scopeId: input.scopeId }, input: input.announcement }),
  }),
  listActive: defineOperation({
    operationId: "listScopeAnnouncements",
    access: "signed-in",
    tags,
    summary: "A scope's announcements showing now",
    method: "get",
    query: z.strictObject(scoped),
    output: announcementListSchema,
    handle: ({ ctx, actor, input }) => listScopeActiveAnnouncements({ deps: ctx.deps, actor, ref: { scope: input.scope, scopeId: input.scopeId } }),
  }),
  history: defineOperation({
    operationId: "listScopeAnnouncementHistory",
    access: "signed-in",
    tags,
    summary: "Every announcement of a scope, past included",
    method: "get",
    query: listQuerySchema.extend(scoped),
    output: announcementListSchema,
    handle: ({ ctx, actor, input }) => {
      const { scope, scopeId, ...query } = input;
      return listScopeAnnouncementHistory({ deps: ctx.deps, actor, ref: { scope, scopeId }, query });
    },
  }),
  cancel: defineOperation({
    operationId: "cancelAnnouncement",
    access: "signed-in",
    tags,
    summary: "Cancel an announcement of any scope with a reason",
    method: "post",
    body: cancelAnnouncementSchema.extend({ ref: scopeRefSchema, id }).strict(),
    output: announcementSchema,
    handle: ({ ctx, actor, input }) => cancelAnnouncement({ deps: ctx.deps, actor, ref: toRef(input.ref), announcementId: input.id, reason: input.reason }),
  }),
  acknowledge: defineOperation({
    operationId: "acknowledgeAnnouncement",
    access: "signed-in",
    tags,
    summary: "Acknowledge an announcement of any scope for yourself",
    method: "post",
    body: z.strictObject({ ref: scopeRefSchema, id }),
    output: acknowledgmentSchema,
    handle: ({ ctx, actor, input }) => acknowledgeAnnouncement({ deps: ctx.deps, actor, ref: toRef(input.ref), announcementId: input.id }),
  }),
  recipients: defineOperation({
    operationId: "listAnnouncementRecipients",
    access: "signed-in",
    tags,
    summary: "Recipients of an announcement of any scope",
    method: "get",
    query: recipientsQuerySchema.extend({ ref: scopeRefSchema, id }),
    output: recipientsViewSchema,
    handle: ({ ctx, actor, input }) => {
      const { ref, id: announcementId, ...query } = input;
      return getAnnouncementRecipients({ deps: ctx.deps, actor, ref: toRef(ref), announcementId, query });
    },
  }),
};
