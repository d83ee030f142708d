import { invitationsCollection, tables, usersCollection, type Executor, type InvitationDoc, type StoredDocument } from "@meridian/db";
import { eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { hashSecret } from "../../platform/secrets/tokens";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { inTransaction } from "../../platform/transaction";
import { invitationScopeRules, recordInvitationChange } from "./invitation-scopes";

const ENDED_BECAUSE: Record<Exclude<InvitationDoc["status"], "pending">, string> = {
  accepted: "This invitation has already been used",
  revoked: "This invitation was revoked",
  replaced: "A newer invitation replaced this one: use the link in the latest email",
};

async function findByToken(options: { db: Executor; token: string; forUpdate?: boolean }) {
  const query = options.db
    .select()
    .from(tables.invitations)
    .where(eq(tables.invitations.tokenHash, hashSecret(options.token)))
    .limit(1);
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (!row) throw new AppError("NOT_FOUND", "No such invitation: check that the whole link was copied");
  return row as StoredDocument<InvitationDoc>;
}

/** 410 INVITATION_EXPIRED for a link that no longer works, saying why. */
function requireUsable(options: { invitation: StoredDocument<InvitationDoc>; now: Date }) {
  const { doc } = options.invitation;
  if (doc.status !== "pending") throw new AppError("INVITATION_EXPIRED", ENDED_BECAUSE[doc.status]);
  if (new Date(doc.expiresAt).getTime() <= options.now.getTime()) throw new AppError("INVITATION_EXPIRED", "This invitation has expired: ask for a new one");
}

/**
 * What an invitation link shows before anyone signs in: the token is the secret, so whoever holds
 * the link may see whom it invites to what (and so sign up with the right address).
 */
export async function previewInvitation(options: { deps: Deps; token: string }) {
  const { deps, token } = options;
  const invitation = await findByToken({ db: deps.db, token });
  requireUsable({ invitation, now: deps.now() });
  const { doc } = invitation;
  const scope = await invitationScopeRules[doc.grant.kind].load({ db: deps.db, id: doc.scopeId });
  if (!scope) throw new AppError("INVITATION_EXPIRED", "What this invitation was for no longer exists");
  const account = await usersCollection.findOne(deps.db, eq(tables.users.emailLower, doc.email.toLowerCase()));
  return {
    kind: doc.grant.kind,
    id: doc.scopeId,
    name: scope.name,
    email: doc.email,
    invitedBy: doc.invitedBy.name,
    expiresAt: doc.expiresAt,
    accountExists: account != null,
  };
}

/**
 * Lets an invited address sign up: the link must still work and be for `email`. It is not used up
 * here; the new account joins when it accepts, as any other.
 */
export async function requireInvitationToSignUp(options: { deps: Deps; token: string; email: string }) {
  const { deps, token, email } = options;
  const invitation = await findByToken({ db: deps.db, token });
  requireUsable({ invitation, now: deps.now() });
  if (invitation.doc.email.toLowerCase() !== email.toLowerCase())
    throw new AppError("INVITATION_EMAIL_MISMATCH", `This invitation is for ${invitation.doc.email}: sign up with that address`);
}

/**
 * Accepts an invitation for the signed-in account, which must have the invited address. The link
 * works once; someone who has meanwhile joined another way still uses it up, and is told where.
 */
export async function acceptInvitation(options: { deps: Deps; actor: UserActor; token: string }) {
  const { deps, actor, token } = options;
  return inTransaction(deps, async (t) => {
    // The scope's row is locked before the invitation's, the order of the scope's deletion (its row, then its
    // members and invitations): a deletion under way is waited for, and none starts until this one has joined.
    const { scopeId, grant } = (await findByToken({ db: t.tx, token })).doc;
    const kind = grant.kind;
    const rules = invitationScopeRules[kind];
    const scope = await rules.hold({ t, id: scopeId });
    if (!scope) throw new AppError("INVITATION_EXPIRED", "What this invitation was for no longer exists");
    // The account's row before the invitation's, the order of a direct addition (its room for one more
    // membership is counted under the user's lock, then its invitations end): the two queue, never deadlock.
    const user = await usersCollection.get(t.tx, actor.id, { forUpdate: true });
    const invitation = await findByToken({ db: t.tx, token, forUpdate: true });
    requireUsable({ invitation, now: t.now() });
    const { doc } = invitation;
    if (!user || user.doc.email.toLowerCase() !== doc.email.toLowerCase())
      throw new AppError("INVITATION_EMAIL_MISMATCH", `This invitation is for ${doc.email}: sign in with that address to accept it`);
    if (!(await rules.isMember({ db: t.tx, id: scope.id, userId: user.id })))
      await rules.join({ t, scope, user: { id: user.id, name: user.doc.name, email: user.doc.email }, grant: doc.grant, invitationId: invitation.id });
    await invitationsCollection.update(t.tx, invitation.id, (current) => ({
      ...current,
      status: "accepted",
      acceptedBy: user.id,
      endedAt: t.now().toISOString(),
    }));
    await recordInvitationChange({
      t,
      actor: { id: user.id, name: user.doc.name },
      scope,
      change: "invitation_accepted",
      invitation: { id: invitation.id, email: doc.email },
      details: doc.grant.kind === "project" ? { role: doc.grant.role } : { permissions: doc.grant.permissions },
    });
    return { kind, id: scope.id };
  });
}
