import { apiKeysCollection, tables, type StoredDocument, type UserDoc } from "@meridian/db";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { API_KEY_PREFIX, hashSecret } from "./tokens";

export interface Principal {
  user: StoredDocument<UserDoc>;
  via: "session" | "apiKey";
  /** The session or API key id that authenticated the request. */
  credentialId: string;
}

const userColumns = { id: tables.users.id, doc: tables.users.doc, createdAt: tables.users.createdAt, updatedAt: tables.users.updatedAt };

/**
 * Resolves a session token or API key to its user; undefined when it is unknown, expired or
 * revoked. One indexed join per request: this runs before every authenticated call.
 */
export async function authenticateToken(options: { deps: Deps; token: string }): Promise<Principal | undefined> {
  const { deps, token } = options;
  if (token.length > 200) return undefined;
  const tokenHash = hashSecret(token);
  if (token.startsWith(API_KEY_PREFIX)) {
    const { apiKeys, users } = tables;
    const [row] = await deps.db
      .select({ user: userColumns, keyId: apiKeys.id, lastUsedAt: sql<string | null>`${apiKeys.doc}->>'lastUsedAt'` })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(and(eq(apiKeys.keyHash, tokenHash), isNull(sql`${apiKeys.doc}->>'revokedAt'`)))
      .limit(1);
    if (!row) return undefined;
    await touchApiKey(deps, row.keyId, row.lastUsedAt);
    return { user: row.user, via: "apiKey", credentialId: row.keyId };
  }
  const { sessions, users } = tables;
  const [row] = await deps.db
    .select({ user: userColumns, sessionId: sessions.id })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, deps.now())))
    .limit(1);
  return row ? { user: row.user, via: "session", credentialId: row.sessionId } : undefined;
}

/** Records last use at most once a minute so a busy key does not write on every request. */
async function touchApiKey(deps: Deps, id: string, lastUsedAt: string | null) {
  const now = deps.now();
  if (lastUsedAt && now.getTime() - new Date(lastUsedAt).getTime() < 60_000) return;
  await apiKeysCollection.update(deps.db, id, (doc) => ({ ...doc, lastUsedAt: now.toISOString() }));
}
