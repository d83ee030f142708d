import { tables } from "@meridian/db";
import { and, eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { InTransaction } from "../../platform/transaction";
import { recordHistory } from "./observatories";

/**
 * Ends a deleted organization's memberships in observatories, in the deleting transaction, each recorded in the
 * observatory's history (organizations ask it through their door, `removeMembershipsWith`); how many ended.
 */
export async function removeDeletedOrganization(options: {
  t: Pick<InTransaction, "tx" | "now">;
  actor: UserActor;
  organizationId: string;
  organizationName: string;
}): Promise<number> {
  const { t, actor, organizationId, organizationName } = options;
  const { observatoryMembers } = tables;
  const memberships = await t.tx
    .delete(observatoryMembers)
    .where(and(eq(observatoryMembers.memberKind, "organization"), eq(observatoryMembers.memberId, organizationId)))
    .returning({ observatoryId: observatoryMembers.observatoryId, doc: observatoryMembers.doc });
  for (const membership of memberships) {
    await recordHistory({
      t,
      observatoryId: membership.observatoryId,
      type: "organization_removed",
      actorId: actor.id,
      data: {
        organizationId,
        organizationName,
        permissionsBefore: membership.doc.permissions,
        permissionsAfter: null,
        reason: "organization_deleted",
      },
    });
  }
  return memberships.length;
}
