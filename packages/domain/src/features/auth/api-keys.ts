import type { UserActor } from "../../platform/actor";
import { apiKeysCollection, tables, usersCollection } from "@meridian/db";
import { and, count, desc, eq, sql } from "drizzle-orm";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError, fieldError } from "../../platform/errors";
import { MAX_API_KEY_LIFETIME_DAYS } from "./schemas";
import { API_KEY_PREFIX, generateSecret, hashSecret } from "../../platform/secrets/tokens";
import { inTransaction } from "../../platform/transaction";

/**
 * Live (not revoked) API keys one user may hold: the next is refused, and the list shows every one.
 * Expired keys count until revoked, so what a user stores stays bounded without a cleanup job.
 */
export const MAX_LIVE_API_KEYS = 100;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The expiry as stored, or a 400 naming the field: a past expiry would make a key dead on arrival, a far one defeats expiring. */
function checkedExpiry(expiresAt: string | null | undefined, now: Date): string | null {
  if (!expiresAt) return null;
  const at = new Date(expiresAt);
  let predicate: string | undefined;
  if (at.getTime() <= now.getTime()) predicate = "must lie in the future";
  else if (at.getTime() > now.getTime() + MAX_API_KEY_LIFETIME_DAYS * DAY_MS) predicate = `must lie at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead`;
  if (predicate) throw new AppError("VALIDATION_FAILED", "The expiry is not valid", { errors: [fieldError({ path: "expiresAt", predicate })] });
  return at.toISOString();
}

/** Creates a key for the actor, refused (409 CONFLICT) while they hold MAX_LIVE_API_KEYS live ones. */
export async function createApiKey(options: { deps: Deps; actor: UserActor; name: string; expiresAt?: string | null }) {
  const { deps, actor, name } = options;
  const userId = actor.id;
  const expiresAt = checkedExpiry(options.expiresAt, deps.now());
  const key = generateSecret(API_KEY_PREFIX);
  return inTransaction(deps, async (t) => {
    // The user's row, locked: concurrent creations count one after another, so none passes the cap beside another.
    const user = await usersCollection.get(t.tx, userId, { forUpdate: true });
    if (!user) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
    const { apiKeys } = tables;
    const [live] = await t.tx
      .select({ count: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), sql`${apiKeys.doc}->>'revokedAt' is null`));
    if ((live?.count ?? 0) >= MAX_LIVE_API_KEYS) throw new AppError("CONFLICT", `An account holds at most ${MAX_LIVE_API_KEYS} API keys; revoke one first`);
    const stored = await apiKeysCollection.insert(t.tx, {
      userId,
      name,
      keyHash: hashSecret(key),
      prefix: key.slice(0, API_KEY_PREFIX.length + 6),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt,
    });
    return { id: stored.id, name, key, createdAt: stored.createdAt.toISOString(), expiresAt };
  });
}

/** Every live key of the actor, expired ones included, newest first: creation caps them at MAX_LIVE_API_KEYS, so the list is whole. */
export async function listApiKeys(options: { deps: Deps; actor: UserActor }) {
  const { apiKeys } = tables;
  const now = options.deps.now().getTime();
  const keys = await options.deps.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, options.actor.id), sql`${apiKeys.doc}->>'revokedAt' is null`))
    .orderBy(desc(apiKeys.createdAt));
  return {
    items: keys.map((key) => ({
      id: key.id,
      name: key.doc.name,
      prefix: key.doc.prefix,
      createdAt: key.createdAt.toISOString(),
      lastUsedAt: key.doc.lastUsedAt,
      expiresAt: key.doc.expiresAt ?? null,
      expired: key.doc.expiresAt ? Date.parse(key.doc.expiresAt) <= now : false,
    })),
    nextCursor: null,
  };
}

/** Revokes one of the actor's keys; someone else's key is reported as not found. */
export async function revokeApiKey(options: { deps: Deps; actor: UserActor; keyId: string }) {
  const { deps, actor, keyId } = options;
  const userId = actor.id;
  const key = await apiKeysCollection.get(deps.db, keyId);
  if (!key || key.doc.userId !== userId || key.doc.revokedAt) throw new AppError("NOT_FOUND", "No such API key");
  await inTransaction(deps, async (t) => {
    await apiKeysCollection.update(t.tx, keyId, (doc) => ({ ...doc, revokedAt: t.now().toISOString() }));
    await invalidateCaches({ t, change: { kind: "token", tokenHash: key.doc.keyHash } });
  });
}
