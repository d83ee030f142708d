import { emailChangesCollection, tables, usersCollection } from "@meridian/db";
import { eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { recordAudit } from "../audit";
import { addressKey } from "../auth";
import { passwordAttemptRules } from "../auth";
import { verifyPassword } from "../auth";
import { assertWithinRateLimit, checkLimitsTogether, countAttempt, recordRateLimitEvent } from "../../platform/rate-limit";
import type { ClientInfo } from "../auth";
import { generateSecret, hashSecret } from "../../platform/secrets/tokens";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import { isUniqueViolation } from "../../platform/postgres-errors";
import { inTransaction } from "../../platform/transaction";
import { presentUser } from "../users";
import { emailHeldByAnother, emailTaken, maskEmail, retireOldAddress } from "./email-address";
import type { EmailChangeRequest } from "./schemas";

const CHANGE_TOKEN_PREFIX = "mec_";
const CHANGE_TTL_MS = 3600_000;
const HOUR_MS = 3600_000;
/** Wrong current passwords: the bucket and window `changePassword` counts them in, so both draw on one allowance. */
const PASSWORD_FAILURES = { bucket: "password-change", windowMs: 15 * 60_000 };

/**
 * Asks to change the caller's sign-in address. The address they have now, in any case, is 400
 * VALIDATION_FAILED at `email`; a wrong current password is 403 INVALID_CREDENTIALS and counts with
 * the wrong passwords of `changePassword`; another account's address is 409 EMAIL_TAKEN, told only
 * to whoever knows the password. Otherwise a single-use link valid for one hour goes to the new
 * address and a heads-up to the current one, in the transaction that stores the request; a newer
 * request replaces the older. Limited per account and per client address as reset requests are.
 */
export async function requestEmailChange(options: { deps: Deps; actor: UserActor; input: EmailChangeRequest; client: ClientInfo; requestOrigin: string }) {
  const { deps, actor, input, client } = options;
  const user = await usersCollection.get(deps.db, actor.id);
  if (!user) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  if (input.email.toLowerCase() === user.doc.email.toLowerCase())
    throw new AppError("VALIDATION_FAILED", "This is already your email address", {
      errors: [{ path: "email", message: "This is already your email address." }],
    });
  const failures = { ...PASSWORD_FAILURES, key: user.id, limit: deps.env.LOGIN_FAILURES_PER_EMAIL };
  const perAccount = { bucket: "email-change-account", key: user.id, limit: deps.env.PASSWORD_RESETS_PER_EMAIL_PER_HOUR, windowMs: HOUR_MS };
  const perIp = client.ip
    ? { bucket: "email-change-ip", key: addressKey(client.ip), limit: deps.env.PASSWORD_RESETS_PER_IP_PER_HOUR, windowMs: HOUR_MS }
    : undefined;
  await inTransaction(deps, async (t) => {
    // Checking the password costs a hash: every attempt counts as a password change's does.
    const rules = passwordAttemptRules({ env: t.env, bucket: "password-change", what: "password checks", ip: client.ip, account: user.id });
    const now = t.now();
    await checkLimitsTogether({
      checks: [
        assertWithinRateLimit({ db: t.tx, now, ...failures }),
        assertWithinRateLimit({ db: t.tx, now, ...perAccount }),
        perIp ? assertWithinRateLimit({ db: t.tx, now, ...perIp }) : undefined,
        countAttempt({ t, rules }),
      ],
    });
  });
  if (!(await verifyPassword({ passwordHash: user.doc.passwordHash, password: input.currentPassword }))) {
    await recordRateLimitEvent({ db: deps.db, now: deps.now(), bucket: failures.bucket, key: failures.key });
    throw new AppError("INVALID_CREDENTIALS", "The current password is not correct", {
      status: 403,
      errors: [{ path: "currentPassword", message: "The current password is not correct." }],
    });
  }
  // Counted on the pool, whatever follows, a taken address included (its refusal rolls the transaction below back):
  // each answer tells whether an address has an account.
  const now = deps.now();
  await Promise.all([
    recordRateLimitEvent({ db: deps.db, now, bucket: perAccount.bucket, key: perAccount.key }),
    perIp ? recordRateLimitEvent({ db: deps.db, now, bucket: perIp.bucket, key: perIp.key }) : undefined,
  ]);
  const token = generateSecret(CHANGE_TOKEN_PREFIX);
  await inTransaction(deps, async (t) => {
    // The user's row is the lock that orders two requests of one account (one pending change each).
    const current = await usersCollection.get(t.tx, user.id, { forUpdate: true });
    if (!current || current.doc.disabled) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
    if (await emailHeldByAnother({ t, email: input.email, userId: user.id })) throw emailTaken();
    await t.tx.delete(tables.emailChanges).where(eq(tables.emailChanges.userId, user.id));
    await emailChangesCollection.insert(t.tx, {
      userId: user.id,
      newEmail: input.email,
      tokenHash: hashSecret(token),
      expiresAt: new Date(t.now().getTime() + CHANGE_TTL_MS).toISOString(),
    });
    const link = appLink({ deps: t, path: `/confirm-email?token=${encodeURIComponent(token)}`, requestOrigin: options.requestOrigin });
    await enqueueEmail({
      t,
      kind: "email_change_confirm",
      to: input.email,
      subject: "Confirm your new Meridian email address",
      text:
        `Hello ${current.doc.name},\n\nSomeone (we hope you) asked to make this the sign-in address of a Meridian account.\n` +
        `Confirm it here within the next hour:\n\n${link}\n\nThe link works once. ` +
        `If you did not ask for it, ignore this email: nothing changes.\n`,
    });
    await enqueueEmail({
      t,
      kind: "email_change_requested",
      to: current.doc.email,
      subject: "Someone asked to change the email address of your Meridian account",
      text:
        `Hello ${current.doc.name},\n\nSomeone signed in to your Meridian account (${appLink({ deps: t, path: "/" })}) asked to change ` +
        `its email address from this address to ${maskEmail(input.email)}.\nNothing changes unless the link sent to the new ` +
        `address is opened within an hour.\nIf this was not you, change your password and cancel the change on the Security page:\n\n` +
        `${appLink({ deps: t, path: "/security" })}\n`,
    });
  });
}

const invalidToken = () =>
  new AppError("INVALID_TOKEN", "This link is invalid or has expired; ask for a new one", {
    errors: [{ path: "token", message: "This link is invalid or has expired." }],
  });

/**
 * Makes the address of a pending change the account's sign-in address, from the link mailed to it:
 * the token is the credential, so no session is needed. Used, expired or unknown links are 400
 * INVALID_TOKEN; an address another account took meanwhile is 409 EMAIL_TAKEN (the unique index
 * decides a race) and the link stays until it expires. The old address is told (the new one
 * masked), reset links mailed there stop working, sessions and keys stay; audited.
 */
export async function confirmEmailChange(options: { deps: Deps; token: string }) {
  try {
    return await applyEmailChange(options);
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "users_email_lower_key" })) throw emailTaken();
    throw error;
  }
}

async function applyEmailChange(options: { deps: Deps; token: string }) {
  const { emailChanges } = tables;
  const tokenHash = hashSecret(options.token);
  return inTransaction(options.deps, async (t) => {
    const [change] = await t.tx.select().from(emailChanges).where(eq(emailChanges.tokenHash, tokenHash)).for("update").limit(1);
    if (!change || new Date(change.doc.expiresAt).getTime() <= t.now().getTime()) throw invalidToken();
    const user = await usersCollection.get(t.tx, change.doc.userId, { forUpdate: true });
    if (!user || user.doc.disabled) throw invalidToken();
    const email = change.doc.newEmail;
    if (await emailHeldByAnother({ t, email, userId: user.id })) throw emailTaken();
    await t.tx.delete(emailChanges).where(eq(emailChanges.id, change.id));
    if (email === user.doc.email) return presentUser(user);
    const updated = await usersCollection.update(t.tx, user.id, (doc) => ({ ...doc, email }));
    const newAddress = email.toLowerCase() !== user.doc.email.toLowerCase();
    await invalidateCaches({ t, change: { kind: "user", userId: user.id } });
    await recordAudit({
      t,
      actor: { id: user.id, name: user.doc.name },
      action: "user.email_changed",
      target: { kind: "user", id: user.id, name: user.doc.name },
      scope: { kind: "system", id: "system", name: null },
      before: { email: user.doc.email },
      after: { email },
    });
    if (newAddress) await retireOldAddress({ t, user: { id: user.id, name: user.doc.name, email: user.doc.email }, newEmail: email, how: "by its link" });
    return presentUser(updated!);
  });
}

/** The caller's pending change of address, if one is waiting for its link and the link still works. */
export async function getPendingEmailChange(options: { deps: Deps; actor: UserActor }) {
  const { deps, actor } = options;
  const change = await emailChangesCollection.findOne(deps.db, eq(tables.emailChanges.userId, actor.id));
  if (!change || new Date(change.doc.expiresAt).getTime() <= deps.now().getTime()) return { pendingEmail: null, expiresAt: null };
  return { pendingEmail: change.doc.newEmail, expiresAt: change.doc.expiresAt };
}

/** Cancels the caller's pending change of address: its link stops working. Nothing pending is fine too. */
export async function cancelEmailChange(options: { deps: Deps; actor: UserActor }): Promise<void> {
  await options.deps.db.delete(tables.emailChanges).where(eq(tables.emailChanges.userId, options.actor.id));
}
