import { z } from "@hono/zod-openapi";
import {
  announcementListSchema,
  announcementSchema,
  createSystemAnnouncement,
  listAnnouncementTargetOptions,
  listQuerySchema,
  listSystemAnnouncements,
  MAX_ACTIVE_ANNOUNCEMENTS,
  previewSystemRecipients,
  recipientCountSchema,
  recipientPreviewSchema,
  systemAnnouncementCreateSchema,
  targetOptionKindSchema,
  targetOptionsSchema,
} from "@meridian/domain/announcements";
import { defineOperation } from "../define-operation";
import { authedErrors, conflict, problemResponseFor } from "../responses";
import { lifecycle, retention, showingLimit, tags } from "./shared";

/**
 * What only system announcements have, under /api/v1/system/motd: the server-admin tier, so anyone else is
 * refused before the input is read. Cancel, acknowledge and recipients are in family.ts.
 */
export const systemAnnouncementOperations = {
  createSystem: defineOperation({
    operationId: "createSystemAnnouncement",
    access: "server-admin",
    tags,
    summary: "Create a system announcement (server admins)",
    description:
      `Recipients are resolved now, once: targets combine and each user is a recipient once; ` +
      `users with access through organizations count. Unknown ids are 400 VALIDATION_FAILED ` +
      `with one error per id; no resulting recipient is 400 NO_RECIPIENTS. ${lifecycle} ` +
      `At most ${MAX_ACTIVE_ANNOUNCEMENTS} are active at once (scheduled ones included); ` +
      `beyond, 409 CONFLICT until one is cancelled, expires or is acknowledged by every recipient. ${showingLimit}`,
    method: "post",
    path: "/api/v1/system/motd",
    status: 201,
    body: systemAnnouncementCreateSchema,
    output: announcementSchema,
    outputDescription: "Created",
    responses: {
      ...authedErrors,
      400: problemResponseFor("Invalid input (VALIDATION_FAILED), unknown ids, or NO_RECIPIENTS"),
      409: conflict(`CONFLICT: ${MAX_ACTIVE_ANNOUNCEMENTS} system announcements are active`),
    },
    handle: ({ ctx, actor, input }) => createSystemAnnouncement({ deps: ctx.deps, actor, input }),
  }),
  listSystem: defineOperation({
    operationId: "listSystemAnnouncements",
    access: "server-admin",
    tags,
    summary: "System announcements, newest first (server admins)",
    description: `\`?status=\` filters. ${lifecycle} ${retention}`,
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
    access: "server-admin",
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
    access: "server-admin",
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
};
