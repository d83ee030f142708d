import { sessionsCollection, tables } from "@meridian/db";
import { and, desc, eq, gt, ne } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { MAX_LIVE_SESSIONS } from "../auth";
import { inTransaction, type InTransaction } from "../../platform/transaction";

/** The actor's live sessions, newest first, marking the one that asks. */
export async function listMySessions(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  const { sessions } = tables;
  const rows = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, actor.id), gt(sessions.expiresAt, deps.now())))
    .orderBy(desc(sessions.createdAt), desc(sessions.id))
    // Sign-ins of one account take turns at its row (`lastLoginAt`), so this is every one.
    .limit(MAX_LIVE_SESSIONS);
  return {
    items: rows.map((row) => ({
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.doc.lastUsedAt ?? row.createdAt.toISOString(),
      userAgent: row.doc.userAgent,
      ip: row.doc.ip ?? null,
      current: actor.sessionId === row.id,
    })),
  };
}

/**
 * Ends sessions of a user in the actor's transaction: their tokens stop working in every
 * process (cache invalidation by NOTIFY), and so do the WebSockets they opened.
 */
export async function endSessions(options: { t: Pick<InTransaction, "tx" | "caches" | "cacheChanges">; userId: string; except?: string; only?: string }) {
  const { t, userId } = options;
  const { sessions } = tables;
  const ended = await t.tx
    .delete(sessions)
    .where(
      and(eq(sessions.userId, userId), options.except ? ne(sessions.id, options.except) : undefined, options.only ? eq(sessions.id, options.only) : undefined),
    )
    .returning({ tokenHash: sessions.tokenHash });
  for (const { tokenHash } of ended) await invalidateCaches({ t, change: { kind: "token", tokenHash } });
  return ended.length;
}

/** Ends one of the actor's sessions (the current one too: that is signing out); another user's is 404. */
export async function revokeMySession(options: { deps: Deps; actor: UserActor; sessionId: string }) {
  const { deps, actor, sessionId } = options;
  await inTransaction(deps, async (t) => {
    const session = await sessionsCollection.get(t.tx, sessionId);
    if (!session || session.doc.userId !== actor.id) throw new AppError("NOT_FOUND", "No such session");
    await endSessions({ t, userId: actor.id, only: sessionId });
  });
}

/** "Sign out everywhere else": every session but the caller's ends (all of them when the caller uses an API key). */
export async function revokeOtherSessions(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  return inTransaction(deps, (t) => endSessions({ t, userId: actor.id, except: actor.sessionId }));
}
