import { observatoriesCollection, observatoryKeysCollection, tables } from "@meridian/db";
import { and, count, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { UserActor } from "../../platform/actor";
import { recordAudit } from "../audit";
import { generateSecret, hashSecret } from "../../platform/secrets/tokens";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { requireObservatoryPermission } from "../permissions";
import { withoutControlCharacters } from "../users";
import { inTransaction } from "../../platform/transaction";

/** Observatory keys are told apart from user credentials by their prefix. */
export const OBSERVATORY_KEY_PREFIX = "mok_";

/** Live (not revoked) keys one observatory may hold: the next is refused, and the list shows every one. */
export const MAX_LIVE_OBSERVATORY_KEYS = 50;

export const observatoryKeyCreateSchema = z
  .strictObject({ name: withoutControlCharacters(z.string().trim().min(1).max(100)) })
  .meta({ id: "ObservatoryKeyCreate" });
export const observatoryKeySchema = z
  .object({ id: z.string(), name: z.string(), prefix: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() })
  .meta({ id: "ObservatoryKey" });
export const createdObservatoryKeySchema = z
  .object({ id: z.string(), name: z.string(), key: z.string().describe("Shown once"), createdAt: z.string() })
  .meta({ id: "CreatedObservatoryKey" });

/** Creates a key for the observatory's plugin (can_admin), refused (409 CONFLICT) while it holds MAX_LIVE_OBSERVATORY_KEYS live ones. */
export async function createObservatoryKey(options: { deps: Deps; actor: UserActor; observatoryId: string; name: string }) {
  const { deps, actor, observatoryId, name } = options;
  return inTransaction(deps, async (t) => {
    await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission: "can_admin" });
    // The observatory's row, locked: concurrent creations count one after another, so none passes the cap beside
    // another, and none lands after a removal that revoked its keys.
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory || observatory.doc.removedAt) throw new AppError("NOT_FOUND", "No such observatory");
    const { observatoryKeys } = tables;
    const [live] = await t.tx
      .select({ count: count() })
      .from(observatoryKeys)
      .where(and(eq(observatoryKeys.observatoryId, observatoryId), isNull(sql`${observatoryKeys.doc}->>'revokedAt'`)));
    if ((live?.count ?? 0) >= MAX_LIVE_OBSERVATORY_KEYS)
      throw new AppError("CONFLICT", `An observatory holds at most ${MAX_LIVE_OBSERVATORY_KEYS} keys; revoke one first`);
    const key = generateSecret(OBSERVATORY_KEY_PREFIX);
    const stored = await observatoryKeysCollection.insert(t.tx, {
      observatoryId,
      name,
      keyHash: hashSecret(key),
      prefix: key.slice(0, OBSERVATORY_KEY_PREFIX.length + 6),
      createdBy: actor.id,
      lastUsedAt: null,
      revokedAt: null,
    });
    const scope = { kind: "observatory" as const, id: observatoryId, name: null };
    await recordAudit({ t, actor, action: "observatory.key_created", target: { kind: "observatory_key", id: stored.id, name }, scope });
    return { id: stored.id, name, key, createdAt: stored.createdAt.toISOString() };
  });
}

/** Every live key of the observatory, newest first: creation caps them at MAX_LIVE_OBSERVATORY_KEYS, so the list is whole. */
export async function listObservatoryKeys(options: { deps: Deps; actor: UserActor; observatoryId: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_admin" });
  const { observatoryKeys } = tables;
  const keys = await observatoryKeysCollection.findMany(
    deps.db,
    and(eq(observatoryKeys.observatoryId, observatoryId), isNull(sql`${observatoryKeys.doc}->>'revokedAt'`)),
    desc(observatoryKeys.createdAt),
  );
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

/** Revoking a key stops it at once: caches are dropped on every process and a connection using it is closed. */
export async function revokeObservatoryKey(options: { deps: Deps; actor: UserActor; observatoryId: string; keyId: string }) {
  const { deps, actor, observatoryId, keyId } = options;
  await inTransaction(deps, async (t) => {
    await requireObservatoryPermission({ db: t.tx, actor, observatoryId, permission: "can_admin" });
    const key = await observatoryKeysCollection.get(t.tx, keyId, { forUpdate: true });
    if (!key || key.doc.observatoryId !== observatoryId || key.doc.revokedAt) throw new AppError("NOT_FOUND", "No such observatory key");
    await observatoryKeysCollection.update(t.tx, keyId, (doc) => ({ ...doc, revokedAt: t.now().toISOString() }));
    const scope = { kind: "observatory" as const, id: observatoryId, name: null };
    await recordAudit({ t, actor, action: "observatory.key_revoked", target: { kind: "observatory_key", id: keyId, name: key.doc.name }, scope });
    await invalidateCaches({ t, change: { kind: "token", tokenHash: key.doc.keyHash } });
  });
}

export interface ObservatoryPrincipal {
  observatoryId: string;
  keyId: string;
}

/** A key's last use is recorded at most this often, however often its connection is re-checked. */
const LAST_USED_INTERVAL_MS = 60_000;

/**
 * Records as used now the keys `which` names that still work and were not recorded in the last
 * minute, in one statement that sets the field alone (a revocation committed meanwhile stays).
 */
function recordKeysUsed(deps: Deps, which: SQL, now: Date) {
  const usedBefore = new Date(now.getTime() - LAST_USED_INTERVAL_MS).toISOString();
  return observatoryKeysCollection.patch(
    deps.db,
    sql`${which} and a.doc->>'revokedAt' is null and coalesce((a.doc->>'lastUsedAt')::timestamptz, '-infinity') <= ${usedBefore}::timestamptz`,
    { lastUsedAt: now.toISOString() },
    { at: now },
  );
}

/**
 * Which of these live connections' keys still work (by their hashes), in one round trip however many
 * connections a process holds: the hub's periodic re-check of every socket. Keys in use are recorded
 * as used, at most once a minute each, in the same round trip.
 */
export async function observatoryKeysStillValid(options: { deps: Deps; keyHashes: string[] }): Promise<Set<string>> {
  const { deps } = options;
  const keyHashes = [...new Set(options.keyHashes)];
  if (keyHashes.length === 0) return new Set();
  // One parameter whatever their number: the statement stays one prepared statement.
  const hashes = sql`(select jsonb_array_elements_text(${JSON.stringify(keyHashes)}::jsonb))`;
  const [valid] = await Promise.all([
    deps.db.execute<{ key_hash: string }>(sql`
      select key_hash from observatory_keys where key_hash in ${hashes} and doc->>'revokedAt' is null`),
    recordKeysUsed(deps, sql`a.key_hash in ${hashes}`, deps.now()),
  ]);
  return new Set(valid.map((row) => row.key_hash));
}

/** The observatory a key acts as; undefined for anything but a live observatory key. Always asks the database: keys are used by few, long connections. */
export async function authenticateObservatoryKey(options: { deps: Deps; token: string }): Promise<ObservatoryPrincipal | undefined> {
  const { deps, token } = options;
  if (!token.startsWith(OBSERVATORY_KEY_PREFIX) || token.length > 200) return undefined;
  const { observatoryKeys } = tables;
  const key = await observatoryKeysCollection.findOne(
    deps.db,
    and(eq(observatoryKeys.keyHash, hashSecret(token)), isNull(sql`${observatoryKeys.doc}->>'revokedAt'`))!,
  );
  if (!key) return undefined;
  const now = deps.now();
  if (!key.doc.lastUsedAt || now.getTime() - new Date(key.doc.lastUsedAt).getTime() >= LAST_USED_INTERVAL_MS)
    await recordKeysUsed(deps, sql`a.id = ${key.id}`, now);
  return { observatoryId: key.doc.observatoryId, keyId: key.id };
}
