import { sessionsCollection, tables, type Executor } from "@meridian/db";
import { and, eq, inArray, lte, or, sql } from "drizzle-orm";
import { invalidateCaches } from "../../platform/cache/request-caches";
import { deleteInBatches } from "../../platform/system/delete-in-batches";
import type { Deps } from "../../platform/deps";
import { generateSecret, hashSecret, SESSION_TOKEN_PREFIX } from "../../platform/secrets/tokens";
import { inTransaction, type InTransaction } from "../../platform/transaction";

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

/**
 * Sessions one account keeps at once. Every sign-in makes one and nothing else ends them before
 * they expire, so a script signing in again and again would grow the table without end; past this
 * the oldest ends, as a browser long closed would have let it lapse.
 */
export const MAX_LIVE_SESSIONS = 100;

export async function createSession(options: {
  t: Pick<InTransaction, "tx" | "now" | "env" | "caches" | "cacheChanges">;
  userId: string;
  client: ClientInfo;
}): Promise<string> {
  const { t, userId, client } = options;
  const token = generateSecret(SESSION_TOKEN_PREFIX);
  const expiresAt = new Date(t.now().getTime() + t.env.SESSION_TTL_DAYS * 86_400_000);
  await sessionsCollection.insert(t.tx, {
    userId,
    tokenHash: hashSecret(token),
    expiresAt: expiresAt.toISOString(),
    userAgent: client.userAgent?.slice(0, 300) ?? null,
    ip: client.ip,
  });
  await endSessionsBeyondCap({ t, userId });
  return token;
}

/** The account's sessions past the newest `MAX_LIVE_SESSIONS`, and its expired ones, end; their tokens stop working in every process. */
async function endSessionsBeyondCap(options: { t: Pick<InTransaction, "tx" | "now" | "caches" | "cacheChanges">; userId: string }) {
  const { t, userId } = options;
  const { sessions } = tables;
  const beyond = t.tx
    .select({ id: sessions.id })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(sql`${sessions.createdAt} desc, ${sessions.id} desc`)
    .offset(MAX_LIVE_SESSIONS);
  const ended = await t.tx
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), or(lte(sessions.expiresAt, t.now()), inArray(sessions.id, beyond))))
    .returning({ tokenHash: sessions.tokenHash });
  for (const { tokenHash } of ended) await invalidateCaches({ t, change: { kind: "token", tokenHash } });
}

/** Removes sessions that expired (they already authenticate nobody); run by an hourly job. */
export function pruneExpiredSessions(options: { db: Executor; now: Date }): Promise<number> {
  return deleteInBatches({ db: options.db, table: "sessions", where: sql`expires_at <= ${options.now.toISOString()}::timestamptz` });
}

export async function deleteSessionByToken(options: { deps: Deps; token: string }): Promise<void> {
  const { deps } = options;
  const { table } = sessionsCollection;
  const tokenHash = hashSecret(options.token);
  await inTransaction(deps, async (t) => {
    await t.tx.delete(table).where(eq(table.tokenHash, tokenHash));
    await invalidateCaches({ t, change: { kind: "token", tokenHash } });
  });
}
