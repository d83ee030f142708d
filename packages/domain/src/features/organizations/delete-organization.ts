import { organizationsCollection, tables } from "@meridian/db";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { recordAudit } from "../audit";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { publishUserEvent } from "../../platform/events/publish";
import { loadOrganizationAccess } from "./organization-access";
import { organizationObservatories, scopeAnnouncements, scopeInvitations } from "./scope-door";
import { inTransaction } from "../../platform/transaction";

const NAMES_SHOWN = 5;

function describeHoldings(kind: "observatory" | "project", names: string[]): string {
  const noun = names.length === 1 ? kind : kind === "observatory" ? "observatories" : "projects";
  const shown = names.slice(0, NAMES_SHOWN).join(", ");
  const more = names.length > NAMES_SHOWN ? ` and ${names.length - NAMES_SHOWN} more` : "";
  return `${names.length} ${noun} (${shown}${more})`;
}

/**
 * The owner (or a server admin) deletes an organization that owns no observatory and no
 * project; its memberships in other observatories end (recorded in their history), its members
 * are told, and its active announcements are cancelled.
 */
export async function deleteOrganization(options: { deps: Deps; actor: UserActor; organizationId: string }) {
  const { deps, actor, organizationId } = options;
  await inTransaction(deps, async (t) => {
    // Lock first, so an observatory, project or member cannot be added to it while we count and delete.
    const access = await loadOrganizationAccess({ db: t.tx, actor, organizationId, forUpdate: true });
    if (!access.isOwner && !actor.isServerAdmin) throw new AppError("FORBIDDEN", "Only the owner may delete the organization");
    const { observatories, projects, organizationMembers } = tables;
    const ownedObservatories = await t.tx
      .select({ doc: observatories.doc })
      .from(observatories)
      // A removed observatory is gone for its owner too: it does not keep the organization.
      .where(and(eq(observatories.ownerKind, "organization"), eq(observatories.ownerId, organizationId), isNull(sql`${observatories.doc}->>'removedAt'`)))
      .orderBy(asc(observatories.createdAt));
    const ownedProjects = await t.tx
      .select({ doc: projects.doc })
      .from(projects)
      .where(eq(projects.organizationId, organizationId))
      .orderBy(asc(projects.createdAt));
    if (ownedObservatories.length > 0 || ownedProjects.length > 0) {
      const holdings = [
        ...(ownedObservatories.length
          ? [
              describeHoldings(
                "observatory",
                ownedObservatories.map((row) => row.doc.name),
              ),
            ]
          : []),
        ...(ownedProjects.length
          ? [
              describeHoldings(
                "project",
                ownedProjects.map((row) => row.doc.name),
              ),
            ]
          : []),
      ];
      throw new AppError("ORGANIZATION_NOT_EMPTY", `The organization still owns ${holdings.join(" and ")}. Transfer or delete them first.`);
    }
    const { doc } = access.organization;
    const memberships = await organizationObservatories().removeMemberships({ t, actor, organizationId, organizationName: doc.name });
    const members = await t.tx
      .delete(organizationMembers)
      .where(eq(organizationMembers.organizationId, organizationId))
      .returning({ userId: organizationMembers.userId });
    const others = members.map((member) => member.userId).filter((userId) => userId !== actor.id);
    if (others.length > 0)
      await publishUserEvent({ t, userIds: others, event: { type: "organization.member_removed", data: { organizationId, organizationName: doc.name } } });
    await scopeAnnouncements().cancelAll({
      t,
      actor,
      scope: "organization",
      scopeId: organizationId,
      reason: `The organization ${doc.name} was deleted.`,
    });
    await scopeInvitations().endAll({ t, kind: "organization", scopeId: organizationId });
    await organizationsCollection.remove(t.tx, organizationId);
    const scope = { kind: "organization" as const, id: organizationId, name: doc.name };
    await recordAudit({
      t,
      actor,
      action: "organization.deleted",
      target: scope,
      scope,
      before: { name: doc.name, shortName: doc.shortName, ownerId: doc.ownerId, members: members.length, observatoryMemberships: memberships },
    });
  });
}
