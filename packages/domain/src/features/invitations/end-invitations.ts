import { invitationsCollection, tables, type InvitationKind } from "@meridian/db";
import { and, eq } from "drizzle-orm";
import type { InTransaction } from "../../platform/transaction";

/**
 * Ends one person's pending invitations to an organization, observatory or project when they join
 * it another way or leave it (removed, or by their own choice): a link sent before must not bring
 * back a member who was removed. The links then say they were revoked.
 */
export async function endInvitationsOf(options: { t: Pick<InTransaction, "tx" | "now">; kind: InvitationKind; scopeId: string; email: string }) {
  const { t, kind, scopeId, email } = options;
  const { invitations } = tables;
  const pending = await invitationsCollection.findMany(
    t.tx,
    and(eq(invitations.scopeKind, kind), eq(invitations.scopeId, scopeId), eq(invitations.emailLower, email.toLowerCase()), eq(invitations.status, "pending"))!,
  );
  for (const invitation of pending)
    await invitationsCollection.update(t.tx, invitation.id, (doc) => ({ ...doc, status: "revoked", endedAt: t.now().toISOString() }));
}
