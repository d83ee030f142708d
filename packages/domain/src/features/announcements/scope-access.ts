import { isOrganizationAdmin } from "../permissions";
import { observatoriesCollection, type Executor } from "@meridian/db";
import type { UserActor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { loadOrganizationAccess } from "../organizations";
import { resolveObservatoryAccess } from "../permissions";
import { loadProjectAccess } from "../projects";

export type ScopedKind = "observatory" | "organization" | "project";
export type AnnouncementScopeRef = { scope: "system"; scopeId: null } | { scope: ScopedKind; scopeId: string };

export interface ScopeAccess {
  scopeName: string | null;
  /** May create, cancel, see history and recipients. */
  canSend: boolean;
}

/**
 * Who may do what with a scope's announcements. Readers are everyone who can see the
 * observatory, organization or project (anyone else gets 404). Senders: observatory owner or
 * can_admin; organization owner or a member with can_manage_members or
 * can_manage_observatories; project owner or project admin; server admins everywhere.
 * System announcements are sent by server admins only.
 */
export async function loadScopeAccess(options: { db: Executor; actor: UserActor; ref: AnnouncementScopeRef }): Promise<ScopeAccess> {
  const { db, actor, ref } = options;
  switch (ref.scope) {
    case "system":
      return { scopeName: null, canSend: actor.isServerAdmin };
    case "observatory": {
      const access = (await resolveObservatoryAccess({ db, userId: actor.id, isServerAdmin: actor.isServerAdmin, observatoryIds: [ref.scopeId] })).get(
        ref.scopeId,
      );
      const observatory = access?.can_view ? await observatoriesCollection.get(db, ref.scopeId) : undefined;
      if (!observatory || !access) throw new AppError("NOT_FOUND", "No such observatory");
      return { scopeName: observatory.doc.name, canSend: access.can_admin };
    }
    case "organization": {
      const access = await loadOrganizationAccess({ db, actor, organizationId: ref.scopeId });
      const canSend = access.isOwner || actor.isServerAdmin || isOrganizationAdmin(access.permissions);
      return { scopeName: access.organization.doc.name, canSend };
    }
    case "project": {
      const access = await loadProjectAccess({ db, actor, projectId: ref.scopeId });
      const canSend = actor.isServerAdmin || access.role === "owner" || access.role === "admin";
      return { scopeName: access.project.doc.name, canSend };
    }
  }
}

export async function requireSender(options: { db: Executor; actor: UserActor; ref: AnnouncementScopeRef }): Promise<ScopeAccess> {
  const { ref } = options;
  const access = await loadScopeAccess(options);
  if (!access.canSend) {
    throw new AppError(
      "FORBIDDEN",
      ref.scope === "system" ? "System announcements are managed by server administrators" : `Only senders of this ${ref.scope}'s announcements may do this`,
    );
  }
  return access;
}
