import { tables } from "@meridian/db";
import { and, desc, eq, getTableColumns, gte, lt, sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { instantKey, keysetCursor } from "../../platform/validation/keyset-cursor";

/** 9999-12-31T23:59:59.999Z: a moment after it is written `+010000-…`, which PostgreSQL refuses. */
const LAST_MILLISECOND = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

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
    .select(auditColumns())
    .from(auditLog)
    .where(
      and(
        filter.actorId ? eq(auditLog.actorId, filter.actorId) : undefined,
        filter.targetId ? eq(auditLog.targetId, filter.targetId) : undefined,
        filter.scopeKind ? eq(auditLog.scopeKind, filter.scopeKind) : undefined,
        filter.scopeId ? eq(auditLog.scopeId, filter.scopeId) : undefined,
        filter.from ? gte(auditLog.createdAt, new Date(filter.from)) : undefined,
        // Inclusive to the millisecond the entries show (`at`), though PostgreSQL keeps microseconds. The last
        // millisecond of year 9999 has no next one PostgreSQL takes, and needs no bound: nothing is later.
        filter.to && new Date(filter.to).getTime() < LAST_MILLISECOND ? lt(auditLog.createdAt, new Date(new Date(filter.to).getTime() + 1)) : undefined,
        auditCursor(options.cursor),
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(options.limit + 1);
  return pageOfAudit({ rows, limit: options.limit });
}

// One position for both audit lists: they share the order, so either's cursor continues in the other.
const auditPosition = keysetCursor({ list: "audit", parts: ["instant", "id"] });

/** An audit list's columns: the row and the key its cursor holds. */
export const auditColumns = () => ({ ...getTableColumns(tables.auditLog), cursorKey: instantKey(tables.auditLog.createdAt) });

/** Entries after the cursor's, in the order of the lists: time first, then id (ids may share a millisecond). */
export function auditCursor(cursor: string | undefined) {
  if (!cursor) return undefined;
  const { auditLog } = tables;
  const [at, id] = auditPosition.decode(cursor);
  return sql`(${auditLog.createdAt}, ${auditLog.id}) < (${at}::timestamptz, ${id})`;
}

export function pageOfAudit(options: { rows: Array<typeof tables.auditLog.$inferSelect & { cursorKey: string }>; limit: number }) {
  const { rows, limit } = options;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      action: row.doc.action,
      actorId: row.doc.actorId,
      actorName: row.doc.actorName,
      target: row.doc.target,
      scope: row.doc.scope,
      before: row.doc.before,
      after: row.doc.after,
    })),
    nextCursor: rows.length > limit && last ? auditPosition.encode(last.cursorKey, last.id) : null,
  };
}
