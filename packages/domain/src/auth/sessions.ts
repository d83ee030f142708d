import { sessionsCollection, type Executor } from "@meridian/db";
import { eq } from "drizzle-orm";
import { invalidateCaches } from "../cache/request-caches";
import type { Deps } from "../deps";
import { generateSecret, hashSecret, SESSION_TOKEN_PREFIX } from "./tokens";

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export async function createSession(options: { deps: Deps; db?: Executor; userId: string; client: ClientInfo }): Promise<string> {
  const { deps, userId, client } = options;
  const token = generateSecret(SESSION_TOKEN_PREFIX);
  const expiresAt = new Date(deps.now().getTime() + deps.env.SESSION_TTL_DAYS * 86_400_000);
  await sessionsCollection.insert(options.db ?? deps.db, {
    userId,
    tokenHash: hashSecret(token),
    expiresAt: expiresAt.toISOString(),
    userAgent: client.userAgent?.slice(0, 300) ?? null,
    ip: client.ip,
  });
  return token;
}

export async function deleteSessionByToken(options: { deps: Deps; token: string }): Promise<void> {
  const { deps } = options;
  const { table } = sessionsCollection;
  const tokenHash = hashSecret(options.token);
  await deps.db.transaction(async (tx) => {
    await tx.delete(table).where(eq(table.tokenHash, tokenHash));
    await invalidateCaches(deps, tx, { kind: "token", tokenHash });
  });
}
