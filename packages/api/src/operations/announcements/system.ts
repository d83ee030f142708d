import { z } from "@hono/zod-openapi";
import {
  acknowledgeAnnouncement,
  announcementListSchema,
  announcementSchema,
  cancelAnnouncement,
  createSystemAnnouncement,
  getAnnouncementRecipients,
  listAnnouncementTargetOptions,
  listQuerySchema,
  listSystemAnnouncements,
  previewSystemRecipients,
  recipientCountSchema,
  recipientPreviewSchema,
  recipientsQuerySchema,
  recipientsViewSchema,
  systemAnnouncementCreateSchema,
  targetOptionKindSchema,
  targetOptionsSchema,
} from "@meridian/domain";
import { defineOperation } from "../define-operation";
import { authedErrors, idParam, problemResponseFor } from "../responses";
import { acknowledged, cancelBody, cancelled, lifecycle, system, tags } from "./shared";

const params = z.object({ id: idParam });

/** System announcements, under /api/v1/system/motd (server admins send; any recipient acknowledges). */
export const systemAnnouncementOperations = {
  createSystem: defineOperation({
    operationId: "createSystemAnnouncement",
    access: "signed-in",
    tags,
    summary: "Create a system announcement (server admins)",
    description:
      `Recipients are resolved now, once: targets combine and each user is a recipient once; ` +
      `users with access through organizations count. Unknown ids are 400 VALIDATION_FAILED ` +
      `with one error per id; no resulting recipient is 400 NO_RECIPIENTS. ${lifecycle}`,
    method: "post",
    path: "/api/v1/system/motd",
    status: 201,
    body: systemAnnouncementCreateSchema,
    output: announcementSchema,
    outputDescription: "Created",
    responses: { ...authedErrors, 400: problemResponseFor("Invalid input (VALIDATION_FAILED), unknown ids, or NO_RECIPIENTS") },
    handle: ({ ctx, actor, input }) => createSystemAnnouncement({ deps: ctx.deps, actor, input }),
  }),
  listSystem: defineOperation({
    operationId: "listSystemAnnouncements",
    access: "signed-in",
    tags,
    summary: "System announcements, newest first (server admins)",
    description: `\`?status=\` filters. ${lifecycle}`,
    method: "get",
    path: "/api/v1/system/motd",
    status: 200,
    query: listQuerySchema,
    output: announcementListSchema,
    outputDescription: "Announcements",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listSystemAnnouncements({ deps: ctx.deps, actor, query: input }),
  }),
  previewSystem: defineOperation({
    operationId: "previewSystemAnnouncementRecipients",
    access: "signed-in",
    tags,
    summary: "Count the recipients targets would reach, without sending (extension; server admins)",
    method: "post",
    path: "/api/v1/system/motd/preview",
    status: 200,
    body: recipientPreviewSchema,
    output: recipientCountSchema,
    outputDescription: "Recipient count",
    responses: authedErrors,
    // Reads nothing into being: the SPA asks it as a query while the form changes.
    trpc: "query",
    handle: ({ ctx, actor, input }) => previewSystemRecipients({ deps: ctx.deps, actor, targets: input.targets }),
  }),
  targetOptions: defineOperation({
    operationId: "listAnnouncementTargetOptions",
    access: "signed-in",
    tags,
    summary: "Search users, observatories, organizations or projects for the target pickers (extension; server admins)",
    method: "get",
    path: "/api/v1/system/motd/target-options",
    status: 200,
    query: z.object({ kind: targetOptionKindSchema, q: z.string().max(200).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) }),
    output: targetOptionsSchema,
    outputDescription: "Matches, by name",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listAnnouncementTargetOptions({ deps: ctx.deps, actor, kind: input.kind, search: input.q, limit: input.limit }),
  }),
  cancelSystem: defineOperation({
    operationId: "cancelSystemAnnouncement",
    access: "signed-in",
    tags,
    summary: "Cancel with a reason (server admins)",
    method: "delete",
    path: "/api/v1/system/motd/{id}",
    status: 200,
    params,
    ...cancelBody,
    ...cancelled,
    trpc: false,
    handle: ({ ctx, actor, input }) =>
      cancelAnnouncement({ deps: ctx.deps, actor, ref: system, announcementId: input.id, reason: (input as { reason?: string }).reason }),
  }),
  acknowledgeSystem: defineOperation({
    operationId: "acknowledgeSystemAnnouncement",
    access: "signed-in",
    tags,
    summary: "Acknowledge for yourself (any recipient)",
    method: "post",
    path: "/api/v1/system/motd/{id}/acknowledge",
    status: 200,
    params,
    ...acknowledged,
    trpc: false,
    handle: ({ ctx, actor, input }) => acknowledgeAnnouncement({ deps: ctx.deps, actor, ref: system, announcementId: input.id }),
  }),
  systemRecipients: defineOperation({
    operationId: "listSystemAnnouncementRecipients",
    access: "signed-in",
    tags,
    summary: "Recipients with delivery and acknowledgment (server admins)",
    description:
      "Per recipient: `emailedAt` (delivery), `seenAt` (first shown in the app) and " +
      "`acknowledgedAt`, kept apart so missed announcements stand out. Sorted by `sort` then user " +
      "id; `limit`/`cursor` page through.",
    method: "get",
    path: "/api/v1/system/motd/{id}/recipients",
    status: 200,
    params,
    query: recipientsQuerySchema,
    output: recipientsViewSchema,
    outputDescription: "Recipients",
    responses: authedErrors,
    trpc: false,
    handle: ({ ctx, actor, input }) => {
      const { id, ...query } = input;
      return getAnnouncementRecipients({ deps: ctx.deps, actor, ref: system, announcementId: id, query });
    },
  }),
};
