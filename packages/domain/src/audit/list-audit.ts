import { tables } from "@meridian/db";
import { and, desc, eq, gte, lt } from "drizzle-orm";
import type { UserActor } from "../actor";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { auditCursor, pageOfAudit } from "../organizations/organizations";

export interface AuditFilter {
  actorId?: string;
  targetId?: string;
  scopeKind?: "system" | "organization" | "observatory" | "project";
  scopeId?: string;
  from?: string;
  to?: string;
}

/** Server admins: the whole audit log, newest first, filterable by actor, target, scope and time. */
export async function listAuditLog(options: { deps: Deps; actor: UserActor; filter: AuditFilter; limit: number; cursor?: string }) {
  const { deps, actor, filter } = options;
  if (!actor.isServerAdmin) throw new AppError("FORBIDDEN", "Server administrators only");
  const { auditLog } = tables;
  const rows = await deps.db
    .select()
    .from(auditLog)
    .where(
      and(
        filter.actorId ? eq(auditLog.actorId, filter.actorId) : undefined,
        filter.targetId ? eq(auditLog.targetId, filter.targetId) : undefined,
        filter.scopeKind ? eq(auditLog.scopeKind, filter.scopeKind) : undefined,
        filter.scopeId ? eq(auditLog.scopeId, filter.scopeId) : undefined,
        filter.from ? gte(auditLog.createdAt, new Date(filter.from)) : undefined,
        // Inclusive to the millisecond the entries show (`at`), though PostgreSQL keeps microseconds.
        filter.to ? lt(auditLog.createdAt, new Date(new Date(filter.to).getTime() + 1)) : undefined,
        auditCursor(options.cursor),
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(options.limit + 1);
  return pageOfAudit({ rows, limit: options.limit });
}
