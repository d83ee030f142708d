import { createRoute, z } from "@hono/zod-openapi";
import { listAuditLog } from "@meridian/domain";
import { auditPageSchema } from "../audit-schema";
import { actorOf } from "../caller";
import { createRouter } from "../env";
import { authedRoute, idParam, jsonResponse, pageQuery } from "../route-helpers";

const isoTime = z.iso.datetime({ offset: true });

export const adminAuditRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/v1/admin/audit",
    tags: ["Administration"],
    summary: "The whole audit log (server admins)",
    description: "Newest first. Filter by actor, target, scope and time (`from`/`to`, ISO 8601, inclusive).",
    request: {
      query: pageQuery.extend({
        actorId: idParam.optional(),
        targetId: idParam.optional(),
        scopeKind: z.enum(["system", "organization", "observatory", "project"]).optional(),
        scopeId: idParam.optional(),
        from: isoTime.optional(),
        to: isoTime.optional(),
      }),
    },
    ...authedRoute({ 200: jsonResponse(auditPageSchema, "Entries") }),
  }),
  async (c) => {
    const { actor, deps } = actorOf(c);
    const { limit, cursor, ...filter } = c.req.valid("query");
    return c.json(await listAuditLog({ deps, actor, filter, limit: limit ?? 50, cursor }), 200);
  },
);
