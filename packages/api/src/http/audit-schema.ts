import { z } from "@hono/zod-openapi";

const reference = z.object({ kind: z.string(), id: z.string(), name: z.string().nullable() });

export const auditPageSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        at: z.string(),
        action: z.string(),
        actorId: z.string().nullable(),
        actorName: z.string().nullable(),
        target: reference,
        scope: reference,
        before: z.unknown(),
        after: z.unknown(),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi("AuditPage");
