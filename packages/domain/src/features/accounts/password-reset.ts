import { passwordResetsCollection, tables, usersCollection } from "@meridian/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { recordAudit } from "../audit";
import { hashPassword } from "../auth";
import { passwordAttemptRules } from "../auth";
import { assertWithinRateLimit, countAttempt, recordRateLimitEvent, checkLimitsTogether } from "../../platform/rate-limit";
import type { ClientInfo } from "../auth";
import { generateSecret, hashSecret } from "../../platform/secrets/tokens";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import { endSessions } from "./user-sessions";
import { inTransaction } from "../../platform/transaction";
import { addressKey } from "../auth";

const RESET_TOKEN_PREFIX = "mpr_";
const RESET_TTL_MS = 3600_000;
const HOUR_MS = 3600_000;

/**
 * "Forgot password": always answers the same (202), whether or not the address has an account,
 * so nobody learns which emails are registered. Rate limited per address and per client. For an
 * existing, enabled account it emails a single-use link valid for one hour; a newer request
 * makes older links useless.
 */
export async function requestPasswordReset(options: { deps: Deps; email: string; client: ClientInfo; requestOrigin: string }) {
  const { deps, client } = options;
  const now = deps.now();
  const emailKey = options.email.trim().toLowerCase();
  await checkLimitsTogether({
    checks: [
      assertWithinRateLimit({ db: deps.db, now, bucket: "reset-email", key: emailKey, limit: deps.env.PASSWORD_RESETS_PER_EMAIL_PER_HOUR, windowMs: HOUR_MS }),
      client.ip
        ? assertWithinRateLimit({
            db: deps.db,
            now,
            bucket: "reset-ip",
            key: addressKey(client.ip),
            limit: deps.env.PASSWORD_RESETS_PER_IP_PER_HOUR,
            windowMs: HOUR_MS,
          })
        : undefined,
    ],
  });
  const token = generateSecret(RESET_TOKEN_PREFIX);
  await inTransaction(deps, async (t) => {
    await recordRateLimitEvent({ db: t.tx, now, bucket: "reset-email", key: emailKey });
    if (client.ip) await recordRateLimitEvent({ db: t.tx, now, bucket: "reset-ip", key: addressKey(client.ip) });
    const user = await usersCollection.findOne(t.tx, eq(tables.users.emailLower, emailKey));
    if (!user || user.doc.disabled) return;
    await t.tx.delete(tables.passwordResets).where(eq(tables.passwordResets.userId, user.id));
    await passwordResetsCollection.insert(t.tx, {
      userId: user.id,
      tokenHash: hashSecret(token),
      expiresAt: new Date(now.getTime() + RESET_TTL_MS).toISOString(),
      usedAt: null,
    });
    const link = appLink({ deps: t, path: `/reset-password?token=${encodeURIComponent(token)}`, requestOrigin: options.requestOrigin });
    await enqueueEmail({
      t,
      kind: "password_reset",
      to: user.doc.email,
      subject: "Reset your Meridian password",
      text:
        `Hello ${user.doc.name},\n\nSomeone (we hope you) asked to reset the password of your Meridian account.\n` +
        `Choose a new password here within the next hour:\n\n${link}\n\nThe link works once. ` +
        `If you did not ask for it, ignore this email: your password stays as it is.\n`,
    });
  });
}

/**
 * Sets the new password from an emailed link; every session of the account ends. Used, expired or unknown links are 400 INVALID_TOKEN,
 * told before the new password is hashed; a link that works counts against the per-minute limits of `passwordAttemptRules`.
 */
export async function confirmPasswordReset(options: { deps: Deps; token: string; newPassword: string; client: ClientInfo }) {
  const { deps, client } = options;
  const tokenHash = hashSecret(options.token);
  const { passwordResets } = tables;
  const usable = and(eq(passwordResets.tokenHash, tokenHash), isNull(sql`${passwordResets.doc}->>'usedAt'`));
  const invalid = () =>
    new AppError("INVALID_TOKEN", "This link is invalid or has expired; ask for a new one", {
      errors: [{ path: "token", message: "This link is invalid or has expired." }],
    });
  const live = (reset: { doc: { expiresAt: string } } | undefined, now: Date): reset is NonNullable<typeof reset> =>
    reset !== undefined && new Date(reset.doc.expiresAt).getTime() > now.getTime();
  // Hashing costs an argon2 run: a link that does not work (anyone may send one) is refused before it, and one that
  // does is counted first. The transaction below judges the link again, under its lock.
  await inTransaction(deps, async (t) => {
    const [reset] = await t.tx.select().from(passwordResets).where(usable).limit(1);
    if (!live(reset, t.now())) throw invalid();
    const rules = passwordAttemptRules({ env: t.env, bucket: "password-reset", what: "password resets", ip: client.ip, account: reset.doc.userId });
    await countAttempt({ t, rules });
  });
  const passwordHash = await hashPassword({ env: deps.env, password: options.newPassword });
  await inTransaction(deps, async (t) => {
    const [reset] = await t.tx.select().from(passwordResets).where(usable).for("update").limit(1);
    if (!live(reset, t.now())) throw invalid();
    const user = await usersCollection.get(t.tx, reset.doc.userId, { forUpdate: true });
    if (!user || user.doc.disabled) throw invalid();
    await passwordResetsCollection.update(t.tx, reset.id, (doc) => ({ ...doc, usedAt: t.now().toISOString() }));
    await usersCollection.update(t.tx, user.id, (doc) => ({ ...doc, passwordHash }));
    const ended = await endSessions({ t, userId: user.id });
    await invalidateCaches({ t, change: { kind: "user", userId: user.id } });
    await recordAudit({
      t,
      actor: { id: user.id, name: user.doc.name },
      action: "user.password_reset",
      target: { kind: "user", id: user.id, name: user.doc.name },
      scope: { kind: "system", id: "system", name: null },
      after: { sessionsEnded: ended },
    });
  });
}
