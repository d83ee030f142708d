import { z } from "@hono/zod-openapi";
import {
  announcementListSchema,
  announcementScopeSchema,
  announcementSchema,
  announcementStatsSchema,
  countActiveObservatoryAnnouncements,
  getAnnouncementStats,
  listManagedAnnouncements,
  listMyCurrentAnnouncements,
  listPendingAnnouncements,
  listPendingAnnouncementsAsJson,
  listQuerySchema,
  markAnnouncementsSeen,
  markSeenSchema,
} from "@meridian/domain/announcements";
import { defineOperation, Reply } from "../define-operation";
import { authedErrors } from "../responses";
import { tags } from "./shared";

const itemsOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

/** The signed-in user's announcements, under /api/v1/user/motd, and what the announcement pages show. */
export const myAnnouncementOperations = {
  pendingJson: defineOperation({
    operationId: "listPendingAnnouncements",
    access: "signed-in",
    tags,
    summary: "Your unacknowledged announcements of every scope that show now",
    description: "Most severe first. Scheduled announcements (startsAt in the future) are not pending yet.",
    method: "get",
    path: "/api/v1/user/motd/pending",
    status: 200,
    output: itemsOf(announcementSchema),
    outputDescription: "Pending announcements",
    responses: authedErrors,
    // REST sends the cached list as serialized once; the tRPC face (`pending`) returns the same list as an object.
    trpc: false,
    handle: async ({ ctx, actor }) => new Reply(200, await listPendingAnnouncementsAsJson({ deps: ctx.deps, actor }), { "content-type": "application/json" }),
  }),
  pending: defineOperation({
    operationId: "listPendingAnnouncementsForApp",
    access: "signed-in",
    tags,
    summary: "Your pending announcements (tRPC face of GET /api/v1/user/motd/pending)",
    method: "get",
    output: itemsOf(announcementSchema),
    handle: ({ ctx, actor }) => listPendingAnnouncements({ deps: ctx.deps, actor }),
  }),
  current: defineOperation({
    operationId: "listCurrentAnnouncements",
    access: "signed-in",
    tags,
    summary: "Announcements you received that show now, acknowledged or not (extension; dashboard banners)",
    method: "get",
    path: "/api/v1/user/motd/current",
    status: 200,
    query: z.object({ scope: announcementScopeSchema.optional() }),
    trpcInputOptional: true,
    output: itemsOf(announcementSchema),
    outputDescription: "Current announcements with your acknowledgedAt",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listMyCurrentAnnouncements({ deps: ctx.deps, actor, scope: input.scope }),
  }),
  markSeen: defineOperation({
    operationId: "markAnnouncementsSeen",
    access: "signed-in",
    tags,
    summary: "Record that the app showed you these announcements (extension)",
    description: "Sets `seenAt` the first time only; ids you did not receive are ignored.",
    method: "post",
    path: "/api/v1/user/motd/seen",
    status: 200,
    body: markSeenSchema,
    output: z.object({ seen: z.number().int() }),
    outputDescription: "How many were seen for the first time",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => markAnnouncementsSeen({ deps: ctx.deps, actor, ids: input.ids }),
  }),
  observatoryCounts: defineOperation({
    operationId: "countObservatoryAnnouncements",
    access: "signed-in",
    tags,
    summary: "Observatories you can see that have announcements showing now (extension; observatory cards)",
    method: "get",
    path: "/api/v1/user/motd/observatories",
    status: 200,
    output: itemsOf(z.object({ observatoryId: z.string(), activeAnnouncements: z.number().int() })),
    outputDescription: "Counts",
    responses: authedErrors,
    handle: ({ ctx, actor }) => countActiveObservatoryAnnouncements({ deps: ctx.deps, actor }),
  }),
  managed: defineOperation({
    operationId: "listManagedAnnouncements",
    access: "signed-in",
    tags,
    summary: "Announcements of one scope that you manage (extension; announcements page)",
    description:
      "Server admins: all of them. Others: those of observatories they administer, organizations " +
      "they manage and projects they own or administer; system announcements only for server " +
      "admins.",
    method: "get",
    path: "/api/v1/user/motd/managed",
    status: 200,
    query: listQuerySchema.extend({ scope: announcementScopeSchema }),
    output: announcementListSchema,
    outputDescription: "Announcements",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => {
      const { scope, ...query } = input;
      return listManagedAnnouncements({ deps: ctx.deps, actor, scope, query });
    },
  }),
  stats: defineOperation({
    operationId: "getAnnouncementStats",
    access: "signed-in",
    tags,
    summary: "Announcement counts per scope you manage (extension; scoped dashboard)",
    method: "get",
    path: "/api/v1/user/motd/stats",
    status: 200,
    output: announcementStatsSchema,
    outputDescription: "Statistics",
    responses: authedErrors,
    handle: ({ ctx, actor }) => getAnnouncementStats({ deps: ctx.deps, actor }),
  }),
};
