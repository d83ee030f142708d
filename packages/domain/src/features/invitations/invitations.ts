import {
  invitationsCollection,
  tables,
  usersCollection,
  type InvitationDoc,
  type InvitationGrant,
  type InvitationKind,
  type StoredDocument,
} from "@meridian/db";
import { and, desc, eq, sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { assertWithinRateLimit, checkLimitsTogether, recordRateLimitEvent } from "../../platform/rate-limit";
import { generateSecret, hashSecret } from "../../platform/secrets/tokens";
import type { Deps } from "../../platform/deps";
import { appLink } from "../../platform/email/app-link";
import { enqueueEmail } from "../../platform/email/outbox";
import { AppError } from "../../platform/errors";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { invitationScopeRules, recordInvitationChange, type InvitationScope } from "./invitation-scopes";

const INVITATION_TOKEN_PREFIX = "mvi_";
const INVITATION_TTL_MS = 7 * 24 * 3600_000;
const HOUR_MS = 3600_000;
/** Resends to one address: enough to fix a typo'd permission, too few to flood a mailbox. */
const INVITATIONS_PER_ADDRESS_PER_HOUR = 5;
const LISTED_INVITATIONS = 1000;

const SCOPE_WORDS: Record<InvitationKind, string> = { organization: "the organization", observatory: "the observatory", project: "the project" };

function presentInvitation(options: { invitation: StoredDocument<InvitationDoc>; now: Date }) {
  const { invitation, now } = options;
  const { doc } = invitation;
  const common = {
    id: invitation.id,
    email: doc.email,
    expiresAt: doc.expiresAt,
    createdAt: invitation.createdAt.toISOString(),
    invitedBy: doc.invitedBy,
    expired: new Date(doc.expiresAt).getTime() <= now.getTime(),
  };
  return doc.grant.kind === "project" ? { ...common, role: doc.grant.role } : { ...common, permissions: doc.grant.permissions };
}

const emailLowerOf = (email: string) => email.trim().toLowerCase();

/**
 * Invites an address to an organization, observatory or project: emails a single-use link valid
 * for seven days. A pending invitation to the same address is replaced (its link stops working),
 * which is also how an invitation is resent. An address that already belongs is 409 ALREADY_MEMBER.
 */
export async function createInvitation(options: {
  deps: Deps;
  actor: UserActor;
  kind: InvitationKind;
  scopeId: string;
  email: string;
  grant: InvitationGrant;
  requestOrigin?: string;
}) {
  const { deps, actor, kind, scopeId, grant } = options;
  const rules = invitationScopeRules[kind];
  const email = options.email.trim();
  const emailLower = emailLowerOf(email);
  const token = generateSecret(INVITATION_TOKEN_PREFIX);
  return inTransaction(deps, async (t) => {
    const scope = await rules.requireManager({ db: t.tx, actor, id: scopeId });
    const now = t.now();
    const scopeKey = `${kind}:${scopeId}`;
    // Invitations to one address in one scope take turns: with none pending yet, there is no row to
    // lock, and two sent at once would both insert (the second refused by the pending index, a 500).
    // Waiting here, the later one finds the earlier pending and replaces it, as the contract says.
    await t.tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`meridian:invitation:${scopeKey}:${emailLower}`}))`);
    await checkLimitsTogether({
      checks: [
        assertWithinRateLimit({ db: t.tx, now, bucket: "invitation-scope", key: scopeKey, limit: deps.env.INVITATIONS_PER_SCOPE_PER_HOUR, windowMs: HOUR_MS }),
        assertWithinRateLimit({
          db: t.tx,
          now,
          bucket: "invitation-address",
          key: `${scopeKey}:${emailLower}`,
          limit: INVITATIONS_PER_ADDRESS_PER_HOUR,
          windowMs: HOUR_MS,
        }),
      ],
    });
    const existingUser = await usersCollection.findOne(t.tx, eq(tables.users.emailLower, emailLower));
    if (existingUser && (await rules.isMember({ db: t.tx, id: scopeId, userId: existingUser.id })))
      throw new AppError("ALREADY_MEMBER", `${existingUser.doc.name} is already a member`);
    const { invitations } = tables;
    // Lock the pending one (if any) so two invitations to one address cannot both stay pending.
    const [previous] = await t.tx
      .select({ id: invitations.id })
      .from(invitations)
      .where(and(eq(invitations.scopeKind, kind), eq(invitations.scopeId, scopeId), eq(invitations.emailLower, emailLower), eq(invitations.status, "pending")))
      .for("update");
    if (previous) await invitationsCollection.update(t.tx, previous.id, (doc) => ({ ...doc, status: "replaced", endedAt: now.toISOString() }));
    const invitation = await invitationsCollection.insert(t.tx, {
      scopeId,
      email,
      grant,
      tokenHash: hashSecret(token),
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      status: "pending",
      invitedBy: { id: actor.id, name: actor.name },
      acceptedBy: null,
      endedAt: null,
    });
    await recordRateLimitEvent({ db: t.tx, now, bucket: "invitation-scope", key: scopeKey });
    await recordRateLimitEvent({ db: t.tx, now, bucket: "invitation-address", key: `${scopeKey}:${emailLower}` });
    await recordInvitationChange({ t, actor, scope, change: "invitation_sent", invitation: { id: invitation.id, email }, details: grantDetails(grant) });
    const link = appLink({ deps: t, path: `/invitations/${encodeURIComponent(token)}`, requestOrigin: options.requestOrigin });
    await enqueueEmail({
      t,
      kind: "invitation",
      to: email,
      subject: `${actor.name} invited you to ${scope.name} on Meridian`,
      text: invitationEmailText({ inviter: actor.name, scope, link, hasAccount: existingUser != null }),
    });
    return presentInvitation({ invitation, now });
  });
}

function grantDetails(grant: InvitationGrant) {
  return grant.kind === "project" ? { role: grant.role } : { permissions: grant.permissions };
}

function invitationEmailText(options: { inviter: string; scope: InvitationScope; link: string; hasAccount: boolean }) {
  const { inviter, scope, link } = options;
  // Joining takes a press on the invitation page, also after signing up through the link (the contract: the new
  // account joins on acceptance), so the email says so rather than promising it happens by itself.
  const join = `"Join ${SCOPE_WORDS[scope.kind]}"`;
  const how = options.hasAccount
    ? `Open the link, sign in with this email address and press ${join} to accept.`
    : `Open the link and create your Meridian account with this email address. You are then back on the invitation: press ${join} there to accept.`;
  return (
    `Hello,\n\n${inviter} invited you to join ${SCOPE_WORDS[scope.kind]} "${scope.name}" on Meridian.\n\n${how}\n\n${link}\n\n` +
    `The link works once and for seven days. If you did not expect this invitation, ignore this email.\n`
  );
}

/** Pending invitations, newest first, expired ones included (flagged) so they can be resent or revoked. */
export async function listInvitations(options: { deps: Deps; actor: UserActor; kind: InvitationKind; scopeId: string }) {
  const { deps, actor, kind, scopeId } = options;
  await invitationScopeRules[kind].requireManager({ db: deps.db, actor, id: scopeId });
  const { invitations } = tables;
  const rows = await invitationsCollection.findMany(
    deps.db,
    and(eq(invitations.scopeKind, kind), eq(invitations.scopeId, scopeId), eq(invitations.status, "pending"))!,
    desc(invitations.createdAt),
    LISTED_INVITATIONS,
  );
  const now = deps.now();
  return { items: rows.map((invitation) => presentInvitation({ invitation, now })), nextCursor: null };
}

/** Revokes a pending invitation: its link stops working. */
export async function revokeInvitation(options: { deps: Deps; actor: UserActor; kind: InvitationKind; scopeId: string; invitationId: string }) {
  const { deps, actor, kind, scopeId, invitationId } = options;
  await inTransaction(deps, async (t) => {
    const scope = await invitationScopeRules[kind].requireManager({ db: t.tx, actor, id: scopeId });
    const invitation = await invitationsCollection.get(t.tx, invitationId, { forUpdate: true });
    if (!invitation || invitation.doc.grant.kind !== kind || invitation.doc.scopeId !== scopeId || invitation.doc.status !== "pending")
      throw new AppError("NOT_FOUND", "No such pending invitation");
    await invitationsCollection.update(t.tx, invitation.id, (doc) => ({ ...doc, status: "revoked", endedAt: t.now().toISOString() }));
    await recordInvitationChange({ t, actor, scope, change: "invitation_revoked", invitation: { id: invitation.id, email: invitation.doc.email } });
  });
}

/** Ends the pending invitations of an organization, observatory or project that is going away. */
export async function endScopeInvitations(options: { t: Pick<InTransaction, "tx">; kind: InvitationKind; scopeId: string }) {
  const { invitations } = tables;
  await options.t.tx.delete(invitations).where(and(eq(invitations.scopeKind, options.kind), eq(invitations.scopeId, options.scopeId)));
}
