import { apiKeysCollection, sessionsCollection, tables } from "@meridian/db";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import type { CachedPrincipal, Principal } from "../../platform/principal";
import { API_KEY_PREFIX, hashSecret } from "../../platform/secrets/tokens";

/** A disabled account's sessions and keys resolve to nobody. */
const enabled = sql`coalesce((${tables.users.doc}->>'disabled')::boolean, false) = false`;

const userColumns = { id: tables.users.id, doc: tables.users.doc, createdAt: tables.users.createdAt, updatedAt: tables.users.updatedAt };

/**
 * SHA-256 of the tokens seen lately: a session's every request presents the same token, and the
 * hash was a measurable share of a cached request's CPU. Bounded (cleared when full); it maps a
 * token to its hash only, so a revoked token gains nothing by being here.
 */
const recentTokenHashes = new Map<string, string>();
const RECENT_TOKEN_HASHES = 10_000;
function hashOfRecentToken(token: string): string {
  let hash = recentTokenHashes.get(token);
  if (hash === undefined) {
    if (recentTokenHashes.size >= RECENT_TOKEN_HASHES) recentTokenHashes.clear();
    hash = hashSecret(token);
    recentTokenHashes.set(token, hash);
  }
  return hash;
}

/**
 * Resolves a session token or API key to its user; undefined when it is unknown, expired or
 * revoked. This runs before every authenticated call, so answers are cached for a few seconds
 * per process; logout, key revocation and changes to the user invalidate them (request-caches).
 * `fresh` skips the cache.
 */
export async function authenticateToken(options: { deps: Deps; token: string; fresh?: boolean }): Promise<Principal | undefined> {
  const { deps, token } = options;
  if (token.length > 200) return undefined;
  const tokenHash = hashOfRecentToken(token);
  const now = deps.now().getTime();
  const cached = options.fresh ? undefined : deps.caches.principals.get(tokenHash, now);
  if (cached && (cached.tokenExpiresAt === null || cached.tokenExpiresAt > now)) {
    // Checked here first: a call into touchCredential that writes nothing still costs an await on every request.
    cached.lastUsedMs ??= cached.lastUsedAt ? Date.parse(cached.lastUsedAt) : -Infinity;
    if (now - cached.lastUsedMs >= TOUCH_INTERVAL_MS) {
      // The requests that come while this one writes do not write too (a hundred updates of one row, each waiting for the last).
      cached.lastUsedMs = now;
      cached.lastUsedAt = await touchCredential(deps, cached.via, cached.credentialId, cached.lastUsedAt ?? null);
      cached.lastUsedMs = undefined;
    }
    return { user: cached.user, via: cached.via, credentialId: cached.credentialId };
  }
  const { caches } = deps;
  // A fresh lookup asks the database on its own, never joining one that began before a logout it must see.
  const principal = await caches.principals.fill(
    tokenHash,
    () => lookUpToken(deps, token, tokenHash),
    (found) => Math.min(now + caches.ttlMs, found.tokenExpiresAt ?? Infinity),
    { alone: options.fresh },
  );
  return principal && { user: principal.user, via: principal.via, credentialId: principal.credentialId };
}

async function lookUpToken(deps: Deps, token: string, tokenHash: string): Promise<CachedPrincipal | undefined> {
  if (token.startsWith(API_KEY_PREFIX)) {
    const { apiKeys, users } = tables;
    const expiresAt = sql<string | null>`${apiKeys.doc}->>'expiresAt'`;
    const [row] = await deps.db
      .select({ user: userColumns, keyId: apiKeys.id, lastUsedAt: sql<string | null>`${apiKeys.doc}->>'lastUsedAt'`, expiresAt })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(
        and(
          eq(apiKeys.keyHash, tokenHash),
          isNull(sql`${apiKeys.doc}->>'revokedAt'`),
          // Keys made before expiry existed have no expiresAt: they never expire.
          sql`(${expiresAt} is null or (${expiresAt})::timestamptz > ${deps.now().toISOString()}::timestamptz)`,
          enabled,
        ),
      )
      .limit(1);
    if (!row) return undefined;
    const lastUsedAt = await touchCredential(deps, "apiKey", row.keyId, row.lastUsedAt);
    // As a session's: the cache stops trusting the key the moment it expires, whatever its TTL.
    const tokenExpiresAt = row.expiresAt === null ? null : Date.parse(row.expiresAt);
    return { user: row.user, via: "apiKey", credentialId: row.keyId, tokenExpiresAt, lastUsedAt };
  }
  const { sessions, users } = tables;
  const [row] = await deps.db
    .select({ user: userColumns, sessionId: sessions.id, expiresAt: sessions.expiresAt, lastUsedAt: sql<string | null>`${sessions.doc}->>'lastUsedAt'` })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, deps.now()), enabled))
    .limit(1);
  if (!row) return undefined;
  const lastUsedAt = await touchCredential(deps, "session", row.sessionId, row.lastUsedAt);
  return { user: row.user, via: "session", credentialId: row.sessionId, tokenExpiresAt: row.expiresAt.getTime(), lastUsedAt };
}

/** A credential's last use is recorded at most once a minute, so busy credentials do not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

// Date.parse, not a Date: this runs on every authenticated request.
const recentlyUsed = (lastUsedAt: string | null, now: number) => lastUsedAt !== null && now - Date.parse(lastUsedAt) < TOUCH_INTERVAL_MS;

/** Records the last use of a key or session unless it was recorded within the last minute. Returns the recorded time. */
async function touchCredential(deps: Deps, via: Principal["via"], id: string, lastUsedAt: string | null): Promise<string | null> {
  const now = deps.now();
  if (recentlyUsed(lastUsedAt, now.getTime())) return lastUsedAt;
  // One statement that sets the field alone: writing back the document as read would undo a revocation committed meanwhile.
  const stamp = { lastUsedAt: now.toISOString() };
  if (via === "apiKey") await apiKeysCollection.patch(deps.db, sql`a.id = ${id}`, stamp);
  else await sessionsCollection.patch(deps.db, sql`a.id = ${id}`, stamp);
  return now.toISOString();
}
