import type { UserActor } from "../actor";
import { apiKeysCollection, tables } from "@meridian/db";
import { and, desc, eq, sql } from "drizzle-orm";
import { invalidateCaches } from "../cache/request-caches";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { API_KEY_PREFIX, generateSecret, hashSecret } from "./tokens";
import { inTransaction } from "../transaction";

export async function createApiKey(options: { deps: Deps; actor: UserActor; name: string }) {
  const { deps, actor, name } = options;
  const userId = actor.id;
  const key = generateSecret(API_KEY_PREFIX);
  const stored = await apiKeysCollection.insert(deps.db, {
    userId,
    name,
    keyHash: hashSecret(key),
    prefix: key.slice(0, API_KEY_PREFIX.length + 6),
    lastUsedAt: null,
    revokedAt: null,
  });
  return { id: stored.id, name, key, createdAt: stored.createdAt.toISOString() };
}

export async function listApiKeys(options: { deps: Deps; actor: UserActor }) {
  const { apiKeys } = tables;
  const keys = await options.deps.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, options.actor.id), sql`${apiKeys.doc}->>'revokedAt' is null`))
    .orderBy(desc(apiKeys.createdAt))
    .limit(200);
  return {
    items: keys.map((key) => ({
      id: key.id,
      name: key.doc.name,
      prefix: key.doc.prefix,
      createdAt: key.createdAt.toISOString(),
      lastUsedAt: key.doc.lastUsedAt,
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
