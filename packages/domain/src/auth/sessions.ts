import { sessionsCollection } from "@meridian/db";
import { eq } from "drizzle-orm";
import { invalidateCaches } from "../cache/request-caches";
import type { Deps } from "../deps";
import { generateSecret, hashSecret, SESSION_TOKEN_PREFIX } from "./tokens";
import { inTransaction, type InTransaction } from "../transaction";

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export async function createSession(options: { t: Pick<InTransaction, "tx" | "now" | "env">; userId: string; client: ClientInfo }): Promise<string> {
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
  return token;
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
