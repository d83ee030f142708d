import { apiKeysCollection, sessionsCollection, tables, usersCollection, type StoredDocument, type UserDoc } from "@meridian/db";
import { eq } from "drizzle-orm";
import type { Deps } from "../deps";
import { API_KEY_PREFIX, hashSecret } from "./tokens";

export interface Principal {
  user: StoredDocument<UserDoc>;
  via: "session" | "apiKey";
  /** The session or API key id that authenticated the request. */
  credentialId: string;
}

/** Resolves a session token or API key to its user; undefined when it is unknown, expired or revoked. */
export async function authenticateToken(options: { deps: Deps; token: string }): Promise<Principal | undefined> {
  const { deps, token } = options;
  if (token.length > 200) return undefined;
  const tokenHash = hashSecret(token);
  if (token.startsWith(API_KEY_PREFIX)) {
    const key = await apiKeysCollection.findOne(deps.db, eq(tables.apiKeys.keyHash, tokenHash));
    if (!key || key.doc.revokedAt) return undefined;
    const user = await usersCollection.get(deps.db, key.doc.userId);
    if (!user) return undefined;
    await touchApiKey(deps, key.id, key.doc.lastUsedAt);
    return { user, via: "apiKey", credentialId: key.id };
  }
  const session = await sessionsCollection.findOne(deps.db, eq(tables.sessions.tokenHash, tokenHash));
  if (!session || new Date(session.doc.expiresAt) <= deps.now()) return undefined;
  const user = await usersCollection.get(deps.db, session.doc.userId);
  return user ? { user, via: "session", credentialId: session.id } : undefined;
}

/** Records last use at most once a minute so a busy key does not write on every request. */
async function touchApiKey(deps: Deps, id: string, lastUsedAt: string | null) {
  const now = deps.now();
  if (lastUsedAt && now.getTime() - new Date(lastUsedAt).getTime() < 60_000) return;
  await apiKeysCollection.update(deps.db, id, (doc) => ({ ...doc, lastUsedAt: now.toISOString() }));
}
