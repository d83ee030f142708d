import { usersCollection } from "@meridian/db";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import { hashPassword, verifyPassword } from "../auth";
import { passwordAttemptRules } from "../auth";
import { assertWithinRateLimit, countAttempt, recordRateLimitEvent, checkLimitsTogether } from "../../platform/rate-limit";
import type { ClientInfo } from "../auth";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import type { ChangePassword } from "./schemas";
import { endSessions } from "./user-sessions";
import { inTransaction } from "../../platform/transaction";

const systemScope = { kind: "system" as const, id: "system", name: null };

/**
 * Needs the current password (403 INVALID_CREDENTIALS otherwise, as docs/api-contract.md says: the actor
 * is signed in, so this is not a failed sign-in). Every other session ends; API keys keep working,
 * as personal access tokens do elsewhere, and are listed on the API keys page to revoke. Every
 * attempt, right or wrong, counts against the per-minute limits of `passwordAttemptRules`.
 */
export async function changePassword(options: { deps: Deps; actor: UserActor; input: ChangePassword; client: ClientInfo }) {
  const { deps, actor, input, client } = options;
  const user = await usersCollection.get(deps.db, actor.id);
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  // A stolen session must not become a way to guess the password: failures count like sign-ins.
  const limit = { bucket: "password-change", key: user.id, limit: deps.env.LOGIN_FAILURES_PER_EMAIL, windowMs: 15 * 60_000 };
  await inTransaction(deps, async (t) => {
    // Each change costs two password hashes, so every one counts, per account and per address, as sign-ins do.
    const rules = passwordAttemptRules({ env: t.env, bucket: "password-change", what: "password changes", ip: client.ip, account: user.id });
    await checkLimitsTogether({ checks: [assertWithinRateLimit({ db: t.tx, now: t.now(), ...limit }), countAttempt({ t, rules })] });
  });
  if (!(await verifyPassword({ passwordHash: user.doc.passwordHash, password: input.currentPassword }))) {
    await recordRateLimitEvent({ db: deps.db, now: deps.now(), bucket: limit.bucket, key: limit.key });
    throw new AppError("INVALID_CREDENTIALS", "The current password is not correct", {
      status: 403,
      errors: [{ path: "currentPassword", message: "The current password is not correct." }],
    });
  }
  const passwordHash = await hashPassword({ env: deps.env, password: input.newPassword });
  await inTransaction(deps, async (t) => {
    await usersCollection.update(t.tx, user.id, (doc) => ({ ...doc, passwordHash }));
    const ended = await endSessions({ t, userId: user.id, except: actor.sessionId });
    await invalidateCaches({ t, change: { kind: "user", userId: user.id } });
    await recordAudit({
      t,
      actor: { id: user.id, name: user.doc.name },
      action: "user.password_changed",
      target: { kind: "user", id: user.id, name: user.doc.name },
      scope: systemScope,
      after: { otherSessionsEnded: ended },
    });
    await enqueueEmail({
      t,
      kind: "password_changed",
      to: user.doc.email,
      subject: "Your Meridian password was changed",
      text:
        `Hello ${user.doc.name},\n\nThe password of your Meridian account was changed, and ` +
        `your other sessions were signed out.\nIf this was not you, reset your password at ` +
        `once and tell your server administrator:\n\n${appLink({ deps: t, path: "/forgot-password" })}\n`,
    });
  });
}
