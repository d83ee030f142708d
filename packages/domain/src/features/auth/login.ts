import { tables, usersCollection } from "@meridian/db";
import { eq } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { presentUser } from "../users";
import { burnPasswordCheck, verifyPassword } from "./passwords";
import { passwordAttemptRules } from "./attempt-limits";
import { assertWithinRateLimit, clearRateLimit, countAttempt, recordRateLimitEvent, checkLimitsTogether } from "../../platform/rate-limit";
import type { LoginInput } from "./schemas";
import { createSession, type ClientInfo } from "./sessions";
import { inTransaction } from "../../platform/transaction";
import { addressKey } from "./address-key";

const FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Failed attempts are limited per email and per client address (LOGIN_FAILURES_PER_*, 15 minutes);
 * every attempt, successful or not, counts against the per-minute limits of `passwordAttemptRules`,
 * refused before the password is hashed. When several limits hold at once the refusal is one 429
 * RATE_LIMITED whose Retry-After is the longest of their waits.
 */
export async function login(options: { deps: Deps; input: LoginInput; client: ClientInfo }) {
  const { deps, input, client } = options;
  const now = deps.now();
  const emailKey = input.email.trim().toLowerCase();
  await inTransaction(deps, async (t) => {
    // Sent together, judged together: of the limits hit, the answer names the one that frees last.
    await checkLimitsTogether({
      checks: [
        assertWithinRateLimit({ db: t.tx, now, bucket: "login-email", key: emailKey, limit: deps.env.LOGIN_FAILURES_PER_EMAIL, windowMs: FAILURE_WINDOW_MS }),
        client.ip
          ? assertWithinRateLimit({
              db: t.tx,
              now,
              bucket: "login-ip",
              key: addressKey(client.ip),
              limit: deps.env.LOGIN_FAILURES_PER_IP,
              windowMs: FAILURE_WINDOW_MS,
            })
          : undefined,
        countAttempt({
          t,
          rules: passwordAttemptRules({ env: deps.env, bucket: "sign-in", what: "sign-in attempts", ip: client.ip, account: emailKey }),
        }),
      ],
    });
  });

  const user = await usersCollection.findOne(deps.db, eq(tables.users.emailLower, emailKey));
  const valid = user
    ? await verifyPassword({ passwordHash: user.doc.passwordHash, password: input.password })
    : (await burnPasswordCheck({ env: deps.env, password: input.password }), false);
  if (!user || !valid) {
    await recordRateLimitEvent({ db: deps.db, now, bucket: "login-email", key: emailKey });
    if (client.ip) await recordRateLimitEvent({ db: deps.db, now, bucket: "login-ip", key: addressKey(client.ip) });
    throw new AppError("INVALID_CREDENTIALS", "Email or password is incorrect");
  }
  await clearRateLimit({ db: deps.db, bucket: "login-email", key: emailKey });
  // Said only to someone who knows the password, so it reveals nothing to a guesser.
  if (user.doc.disabled) throw new AppError("ACCOUNT_DISABLED", "This account has been disabled by a server administrator");
  const token = await inTransaction(deps, async (t) => {
    await usersCollection.update(t.tx, user.id, (doc) => ({ ...doc, lastLoginAt: now.toISOString() }));
    return createSession({ t, userId: user.id, client });
  });
  return { user: presentUser(user), token };
}
