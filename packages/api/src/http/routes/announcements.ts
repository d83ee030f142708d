import { createRoute, z } from "@hono/zod-openapi";
import {
  acknowledgeAnnouncement,
  acknowledgmentSchema,
  announcementListSchema,
  announcementSchema,
  announcementStatsSchema,
  cancelAnnouncement,
  cancelAnnouncementSchema,
  countActiveObservatoryAnnouncements,
  createScopedAnnouncement,
  createSystemAnnouncement,
  getAnnouncementRecipients,
  getAnnouncementStats,
  listAnnouncementTargetOptions,
  listManagedAnnouncements,
  listMyCurrentAnnouncements,
  listPendingAnnouncementsAsJson,
  listQuerySchema,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  listSystemAnnouncements,
  markAnnouncementsSeen,
  markSeenSchema,
  previewScopedRecipients,
  previewSystemRecipients,
  recipientCountSchema,
  recipientPreviewSchema,
  recipientsQuerySchema,
  recipientsViewSchema,
  scopedAnnouncementCreateSchema,
  systemAnnouncementCreateSchema,
  targetOptionKindSchema,
  targetOptionsSchema,
  type ScopedKind,
} from "@meridian/domain";
import { actorOf } from "../caller";
import { createRouter } from "../env";
import { problemResponseFor } from "../openapi-shared";
import { authedRoute, conflict, idParam, jsonBody, jsonResponse } from "../route-helpers";

const tags = ["Announcements"];
const system = { scope: "system", scopeId: null } as const;
const motdParams = z.object({ id: idParam });
const cancelBody = { required: false, description: "`{reason}`; a missing or blank reason is 400 REASON_REQUIRED", content: { "application/json": { schema: cancelAnnouncementSchema } } };
const cancelResponses = authedRoute({
  200: jsonResponse(announcementSchema, "Cancelled"),
  400: problemResponseFor("No reason (REASON_REQUIRED) or invalid input (VALIDATION_FAILED)"),
  409: conflict("INVALID_TRANSITION: only active announcements can be cancelled"),
});
const acknowledgeResponses = authedRoute({
  200: jsonResponse(acknowledgmentSchema, "Acknowledged (again: the first time is kept)"),
  404: problemResponseFor("Not a recipient, or no such announcement (NOT_FOUND)"),
  409: conflict("INVALID_TRANSITION: cancelled, expired or not yet started"),
});
const lifecycle =
  "Status: active → acknowledged when every recipient has acknowledged; active → expired once `expiresAt` has passed (evaluated on every read and every minute by a job); active → cancelled with a reason. Any other move is 409 INVALID_TRANSITION. Email recipients (`email`, `both`) are acknowledged at creation, or when a scheduled announcement starts (until then it can be cancelled); the creator, when a recipient, at creation.";

/** Reads `{reason}` leniently: a DELETE without a body is a missing reason (400 REASON_REQUIRED), not malformed input. */
const reasonOf = (body: unknown) => (body && typeof body === "object" && "reason" in body ? (body as { reason?: string }).reason : undefined);

const systemRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/system/motd",
      tags,
      summary: "Create a system announcement (server admins)",
      description: `Recipients are resolved now, once: targets combine and each user is a recipient once; users with access through organizations count. Unknown ids are 400 VALIDATION_FAILED with one error per id; no resulting recipient is 400 NO_RECIPIENTS. ${lifecycle}`,
      request: { body: jsonBody(systemAnnouncementCreateSchema) },
      ...authedRoute({ 201: jsonResponse(announcementSchema, "Created"), 400: problemResponseFor("Invalid input (VALIDATION_FAILED), unknown ids, or NO_RECIPIENTS") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await createSystemAnnouncement({ deps, actor, input: c.req.valid("json") }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/system/motd",
      tags,
      summary: "System announcements, newest first (server admins)",
      description: `\`?status=\` filters. ${lifecycle}`,
      request: { query: listQuerySchema },
      ...authedRoute({ 200: jsonResponse(announcementListSchema, "Announcements") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await listSystemAnnouncements({ deps, actor, query: c.req.valid("query") }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/system/motd/preview",
      tags,
      summary: "Count the recipients targets would reach, without sending (extension; server admins)",
      request: { body: jsonBody(recipientPreviewSchema) },
      ...authedRoute({ 200: jsonResponse(recipientCountSchema, "Recipient count") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await previewSystemRecipients({ deps, actor, targets: c.req.valid("json").targets }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/system/motd/target-options",
      tags,
      summary: "Search users, observatories, organizations or projects for the target pickers (extension; server admins)",
      request: { query: z.object({ kind: targetOptionKindSchema, q: z.string().max(200).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) }) },
      ...authedRoute({ 200: jsonResponse(targetOptionsSchema, "Matches, by name") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const query = c.req.valid("query");
      return c.json(await listAnnouncementTargetOptions({ deps, actor, kind: query.kind, search: query.q, limit: query.limit }), 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/api/v1/system/motd/{id}", tags, summary: "Cancel with a reason (server admins)", request: { params: motdParams, body: cancelBody }, ...cancelResponses }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const body = await c.req.json().catch(() => undefined);
      return c.json(await cancelAnnouncement({ deps, actor, ref: system, announcementId: c.req.valid("param").id, reason: reasonOf(body) }), 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/api/v1/system/motd/{id}/acknowledge", tags, summary: "Acknowledge for yourself (any recipient)", request: { params: motdParams }, ...acknowledgeResponses }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await acknowledgeAnnouncement({ deps, actor, ref: system, announcementId: c.req.valid("param").id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/system/motd/{id}/recipients",
      tags,
      summary: "Recipients with delivery and acknowledgment (server admins)",
      description: "Per recipient: `emailedAt` (delivery), `seenAt` (first shown in the app) and `acknowledgedAt`, kept apart so missed announcements stand out. Sorted by `sort` then user id; `limit`/`cursor` page through.",
      request: { params: motdParams, query: recipientsQuerySchema },
      ...authedRoute({ 200: jsonResponse(recipientsViewSchema, "Recipients") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await getAnnouncementRecipients({ deps, actor, ref: system, announcementId: c.req.valid("param").id, query: c.req.valid("query") }), 200);
    },
  );

const userRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/motd/pending",
      tags,
      summary: "Your unacknowledged announcements of every scope that show now",
      description: "Most severe first. Scheduled announcements (startsAt in the future) are not pending yet.",
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(announcementSchema) }), "Pending announcements") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      // Same body as c.json(listPendingAnnouncements(...)), serialized once per cached list.
      return c.body(await listPendingAnnouncementsAsJson({ deps, actor }), 200, { "content-type": "application/json" }) as never;
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/motd/current",
      tags,
      summary: "Announcements you received that show now, acknowledged or not (extension; dashboard banners)",
      request: { query: z.object({ scope: z.enum(["system", "observatory", "organization", "project"]).optional() }) },
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(announcementSchema) }), "Current announcements with your acknowledgedAt") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await listMyCurrentAnnouncements({ deps, actor, scope: c.req.valid("query").scope }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/v1/user/motd/seen",
      tags,
      summary: "Record that the app showed you these announcements (extension)",
      description: "Sets `seenAt` the first time only; ids you did not receive are ignored.",
      request: { body: jsonBody(markSeenSchema) },
      ...authedRoute({ 200: jsonResponse(z.object({ seen: z.number().int() }), "How many were seen for the first time") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await markAnnouncementsSeen({ deps, actor, ids: c.req.valid("json").ids }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/motd/observatories",
      tags,
      summary: "Observatories you can see that have announcements showing now (extension; observatory cards)",
      ...authedRoute({ 200: jsonResponse(z.object({ items: z.array(z.object({ observatoryId: z.string(), activeAnnouncements: z.number().int() })) }), "Counts") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await countActiveObservatoryAnnouncements({ deps, actor }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/motd/managed",
      tags,
      summary: "Announcements of one scope that you manage (extension; announcements page)",
      description: "Server admins: all of them. Others: those of observatories they administer, organizations they manage and projects they own or administer; system announcements only for server admins.",
      request: { query: listQuerySchema.extend({ scope: z.enum(["system", "observatory", "organization", "project"]) }) },
      ...authedRoute({ 200: jsonResponse(announcementListSchema, "Announcements") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      const { scope, ...query } = c.req.valid("query");
      return c.json(await listManagedAnnouncements({ deps, actor, scope, query }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/v1/user/motd/stats",
      tags,
      summary: "Announcement counts per scope you manage (extension; scoped dashboard)",
      ...authedRoute({ 200: jsonResponse(announcementStatsSchema, "Statistics") }),
    }),
    async (c) => {
      const { actor, deps } = actorOf(c);
      return c.json(await getAnnouncementStats({ deps, actor }), 200);
    },
  );

const senders: Record<ScopedKind, string> = {
  observatory: "the observatory's owner or a member with can_admin",
  organization: "the organization's owner or a member with can_manage_members or can_manage_observatories",
  project: "the project's owner or a project admin",
};

/** The six contract paths (plus a recipient preview) under /observatories, /organizations and /projects. */
function scopedRoutes(scope: ScopedKind, prefix: string) {
  const scopedTags = tags;
  const params = z.object({ id: idParam });
  const itemParams = z.object({ id: idParam, motdId: idParam });
  const who = `Senders: ${senders[scope]}; server admins everywhere.`;
  return createRouter()
    .openapi(
      createRoute({
        method: "post",
        path: `/${prefix}/{id}/motd`,
        tags: scopedTags,
        summary: `Create a ${scope} announcement (senders)`,
        description: `Recipients: everyone with access to the ${scope}, resolved now. ${who} ${lifecycle}`,
        request: { params, body: jsonBody(scopedAnnouncementCreateSchema) },
        ...authedRoute({ 201: jsonResponse(announcementSchema, "Created"), 400: problemResponseFor("Invalid input (VALIDATION_FAILED) or NO_RECIPIENTS") }),
      }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        const ref = { scope, scopeId: c.req.valid("param").id };
        return c.json(await createScopedAnnouncement({ deps, actor, ref, input: c.req.valid("json") }), 201);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: `/${prefix}/{id}/motd`,
        tags: scopedTags,
        summary: `The ${scope}'s announcements showing now (anyone who can see the ${scope})`,
        description: "Started, not expired, not cancelled; `acknowledgedAt` is yours when you are a recipient.",
        request: { params },
        ...authedRoute({ 200: jsonResponse(announcementListSchema, "Announcements") }),
      }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        return c.json(await listScopeActiveAnnouncements({ deps, actor, ref: { scope, scopeId: c.req.valid("param").id } }), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: `/${prefix}/{id}/motd/history`,
        tags: scopedTags,
        summary: `Every announcement of the ${scope}, past included (senders)`,
        description: `\`?status=\` filters. ${who}`,
        request: { params, query: listQuerySchema },
        ...authedRoute({ 200: jsonResponse(announcementListSchema, "Announcements") }),
      }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        return c.json(await listScopeAnnouncementHistory({ deps, actor, ref: { scope, scopeId: c.req.valid("param").id }, query: c.req.valid("query") }), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: `/${prefix}/{id}/motd/preview`,
        tags: scopedTags,
        summary: "How many users an announcement would reach now (extension; senders)",
        request: { params },
        ...authedRoute({ 200: jsonResponse(recipientCountSchema, "Recipient count") }),
      }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        return c.json(await previewScopedRecipients({ deps, actor, ref: { scope, scopeId: c.req.valid("param").id } }), 200);
      },
    )
    .openapi(
      createRoute({ method: "delete", path: `/${prefix}/{id}/motd/{motdId}`, tags: scopedTags, summary: "Cancel with a reason (senders)", description: who, request: { params: itemParams, body: cancelBody }, ...cancelResponses }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        const { id, motdId } = c.req.valid("param");
        const body = await c.req.json().catch(() => undefined);
        return c.json(await cancelAnnouncement({ deps, actor, ref: { scope, scopeId: id }, announcementId: motdId, reason: reasonOf(body) }), 200);
      },
    )
    .openapi(
      createRoute({ method: "post", path: `/${prefix}/{id}/motd/{motdId}/acknowledge`, tags: scopedTags, summary: "Acknowledge for yourself (recipients)", request: { params: itemParams }, ...acknowledgeResponses }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        const { id, motdId } = c.req.valid("param");
        return c.json(await acknowledgeAnnouncement({ deps, actor, ref: { scope, scopeId: id }, announcementId: motdId }), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: `/${prefix}/{id}/motd/{motdId}/recipients`,
        tags: scopedTags,
        summary: "Recipients with delivery and acknowledgment (senders)",
        description: `Same shape and parameters as the system view. ${who}`,
        request: { params: itemParams, query: recipientsQuerySchema },
        ...authedRoute({ 200: jsonResponse(recipientsViewSchema, "Recipients") }),
      }),
      async (c) => {
        const { actor, deps } = actorOf(c);
        const { id, motdId } = c.req.valid("param");
        return c.json(await getAnnouncementRecipients({ deps, actor, ref: { scope, scopeId: id }, announcementId: motdId, query: c.req.valid("query") }), 200);
      },
    );
}

export const announcementRoutes = createRouter()
  .route("/", systemRoutes)
  .route("/", userRoutes)
  .route("/", scopedRoutes("observatory", "observatories"))
  .route("/", scopedRoutes("organization", "organizations"))
  .route("/", scopedRoutes("project", "projects"));
