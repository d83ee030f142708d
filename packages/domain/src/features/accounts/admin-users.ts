import { tables, usersCollection, type StoredDocument, type UserDoc } from "@meridian/db";
import { and, asc, gt, ilike, or, sql } from "drizzle-orm";
import { recordAudit } from "../audit";
import { withdrawDisabledRecipient } from "../announcements";
import type { UserActor } from "../../platform/actor";
import { invalidateCaches } from "../../platform/cache/request-caches";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { isUniqueViolation } from "../../platform/postgres-errors";
import type { AdminUser, AdminUserUpdate } from "./schemas";
import { emailHeldByAnother, emailTaken, retireOldAddress, welcomeNewAddress } from "./email-address";
import { endSessions } from "./user-sessions";
import { inTransaction } from "../../platform/transaction";
import { keysetCursor } from "../../platform/validation/keyset-cursor";

const SERVER_ADMIN = "serverAdmin";
const holdsServerAdmin = sql`doc->'roles' ? 'serverAdmin'`;
// `disabled` is optional in the document: absent is enabled.
const isDisabled = sql`coalesce((doc->>'disabled')::boolean, false)`;
/** A row of `users` that is an enabled server admin. */
const enabledServerAdmin = sql`${holdsServerAdmin} and ${isDisabled} = false`;
/** Held while the set of enabled server admins changes, so two concurrent demotions cannot leave none. */
const SERVER_ADMINS_LOCK = sql`select pg_advisory_xact_lock(hashtext('meridian:server-admins'))`;

function presentAdminUser(user: StoredDocument<UserDoc>): AdminUser {
  return {
    id: user.id,
    email: user.doc.email,
    name: user.doc.name,
    roles: user.doc.roles,
    disabled: user.doc.disabled === true,
    createdAt: user.createdAt.toISOString(),
    lastLoginAt: user.doc.lastLoginAt ?? null,
  };
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

// In id order, so an id alone places a cursor; it is still wrapped, so that garbage is told apart.
const userPosition = keysetCursor({ list: "users", parts: ["id"] });

/**
 * Every account, oldest first (ids sort by creation), narrowed by whichever of these are given: the
 * email or name contains `q`, it holds `role`, it is `status`. The filters only leave rows out of the
 * same id order, so a cursor stays a place in it whichever filters the next page is asked with.
 */
export async function listUsersForAdmin(options: {
  deps: Deps;
  q?: string;
  role?: "serverAdmin";
  status?: "active" | "disabled";
  limit: number;
  cursor?: string;
}) {
  const { deps, limit } = options;
  const { users } = tables;
  const q = options.q?.trim();
  const [afterId] = options.cursor ? userPosition.decode(options.cursor) : [];
  const [rows, [admins]] = await Promise.all([
    deps.db
      .select()
      .from(users)
      .where(
        and(
          q ? or(ilike(users.emailLower, likePattern(q.toLowerCase())), ilike(sql`${users.doc}->>'name'`, likePattern(q))) : undefined,
          options.role === SERVER_ADMIN ? holdsServerAdmin : undefined,
          options.status === "disabled" ? isDisabled : options.status === "active" ? sql`not ${isDisabled}` : undefined,
          afterId ? gt(users.id, afterId) : undefined,
        ),
      )
      .orderBy(asc(users.id))
      .limit(limit + 1),
    // Whatever the page shows: what the page needs to tell the last one, whom no change may demote.
    deps.db.execute<{ count: number }>(sql`select count(*)::int as count from users where ${enabledServerAdmin}`),
  ]);
  const page = rows.slice(0, limit);
  return {
    items: page.map(presentAdminUser),
    nextCursor: rows.length > limit ? userPosition.encode(page[page.length - 1]!.id) : null,
    enabledServerAdmins: admins?.count ?? 0,
  };
}

/**
 * Disables or enables an account, grants or revokes serverAdmin, and corrects its name and email.
 * Disabling ends the account's sessions, makes its API keys fail at once (in every process) and
 * takes it out of the running announcements it has not acknowledged (`withdrawDisabledRecipient`);
 * enabling lets it sign in again, and it receives the announcements created from then on. No change
 * may leave the server without an enabled server admin (409 LAST_SERVER_ADMIN), and an admin cannot
 * disable their own account. An email another account uses, in any case, is 409 EMAIL_TAKEN (the
 * unique index decides a race). A new address (not only its case) is told to the old one in the
 * same transaction, so that a hijack is noticed, and the reset links mailed to the old one stop
 * working; sessions and keys stay valid, since a correction is not a security reset. Each change
 * is audited. The caller must still be an enabled server admin when the change is made, not only
 * when the request arrived: of two admins demoting each other at once, the second is refused (403).
 */
export async function updateUserByAdmin(options: { deps: Deps; actor: UserActor; userId: string; input: AdminUserUpdate }) {
  try {
    return await applyUserUpdate(options);
  } catch (error) {
    if (isUniqueViolation({ error, constraint: "users_email_lower_key" })) throw emailTaken();
    throw error;
  }
}

async function applyUserUpdate(options: { deps: Deps; actor: UserActor; userId: string; input: AdminUserUpdate }) {
  const { deps, actor, userId, input } = options;
  return inTransaction(deps, async (t) => {
    await t.tx.execute(SERVER_ADMINS_LOCK);
    // The caller was a server admin when the request was authenticated; another admin's change
    // that committed since (every one takes this lock) may have taken that away.
    const [user, caller] = await Promise.all([
      usersCollection.get(t.tx, userId, { forUpdate: true }),
      userId === actor.id ? undefined : usersCollection.get(t.tx, actor.id),
    ]);
    const callerDoc = userId === actor.id ? user?.doc : caller?.doc;
    if (!callerDoc || callerDoc.disabled === true || !callerDoc.roles.includes(SERVER_ADMIN)) throw new AppError("FORBIDDEN", "Server administrators only");
    if (!user) throw new AppError("NOT_FOUND", "No such user");
    const wasDisabled = user.doc.disabled === true;
    const wasAdmin = user.doc.roles.includes(SERVER_ADMIN);
    const disabled = input.disabled ?? wasDisabled;
    const admin = input.roles ? input.roles.includes(SERVER_ADMIN) : wasAdmin;
    const name = input.name ?? user.doc.name;
    const email = input.email ?? user.doc.email;
    // A change of case only is the same mailbox and the same sign-in: stored, but told to nobody.
    const newAddress = email.toLowerCase() !== user.doc.email.toLowerCase();
    if (disabled && !wasDisabled && userId === actor.id) throw new AppError("FORBIDDEN", "You cannot disable your own account");
    if (wasAdmin && !wasDisabled && (!admin || disabled)) {
      const [row] = await t.tx.execute<{ others: number }>(sql`select count(*)::int as others from users where ${enabledServerAdmin} and id <> ${userId}`);
      if (!row || row.others === 0) throw new AppError("LAST_SERVER_ADMIN", "This is the last enabled server administrator: make someone else one first");
    }
    if (newAddress && (await emailHeldByAnother({ t, email, userId }))) throw emailTaken();
    if (disabled === wasDisabled && admin === wasAdmin && name === user.doc.name && email === user.doc.email) return presentAdminUser(user);

    const roles: UserDoc["roles"] = admin ? [...new Set([...user.doc.roles, SERVER_ADMIN] as const)] : user.doc.roles.filter((role) => role !== SERVER_ADMIN);
    const updated = await usersCollection.update(t.tx, userId, (doc) => ({ ...doc, roles, disabled, name, email }));
    if (disabled && !wasDisabled) {
      await endSessions({ t, userId });
      await withdrawDisabledRecipient({ t, userId });
    }
    await invalidateCaches({ t, change: { kind: "user", userId } });
    const target = { kind: "user", id: userId, name };
    const scope = { kind: "system" as const, id: "system", name: null };
    if (disabled !== wasDisabled)
      await recordAudit({
        t,
        actor,
        action: disabled ? "user.disabled" : "user.enabled",
        target,
        scope,
        before: { disabled: wasDisabled },
        after: { disabled },
      });
    if (admin !== wasAdmin)
      await recordAudit({
        t,
        actor,
        action: admin ? "user.server_admin_granted" : "user.server_admin_revoked",
        target,
        scope,
        before: { roles: user.doc.roles },
        after: { roles },
      });
    if (name !== user.doc.name) await recordAudit({ t, actor, action: "user.renamed", target, scope, before: { name: user.doc.name }, after: { name } });
    if (email !== user.doc.email)
      await recordAudit({ t, actor, action: "user.email_changed", target, scope, before: { email: user.doc.email }, after: { email } });
    if (newAddress) {
      await retireOldAddress({ t, user: { id: userId, name: user.doc.name, email: user.doc.email }, newEmail: email, how: "by an administrator" });
      await welcomeNewAddress({ t, name, email });
    }
    return presentAdminUser(updated!);
  });
}
