import type { InvitationKind } from "@meridian/db";
import type { UserActor } from "../../platform/actor";
import { defineDoor } from "../../platform/door";
import type { InTransaction } from "../../platform/transaction";

/** An organization, observatory or project: the places announcements are sent to and invitations invite into. */
type ScopeKind = InvitationKind;

/**
 * What an organization, observatory or project asks, when it ends or a person joins or leaves it, of the features that
 * hold something in it: announcements (sent to its members) and invitations (into it), which both read who may act in
 * a scope and so build on the scopes. They plug in from their own index.ts (`endAnnouncementsWith`, `endInvitationsWith`),
 * so that no scope imports them back. Declared here, the lowest of the three scopes, which projects and observatories
 * already enter by this door.
 */
export interface ScopeAnnouncementsDoor {
  /** Cancels a scope's active announcements and stops its acknowledged ones showing, in the deleting transaction; how many were cancelled. */
  cancelAll(options: {
    t: Pick<InTransaction, "tx" | "now" | "caches" | "cacheChanges">;
    actor: UserActor;
    scope: ScopeKind;
    scopeId: string;
    reason: string;
  }): Promise<number>;
}

export interface ScopeInvitationsDoor {
  /** Ends the pending invitations of a scope that is going away. */
  endAll(options: { t: Pick<InTransaction, "tx">; kind: ScopeKind; scopeId: string }): Promise<void>;
  /** Ends one person's pending invitations to a scope they joined another way or left. */
  endFor(options: { t: Pick<InTransaction, "tx" | "now">; kind: ScopeKind; scopeId: string; email: string }): Promise<void>;
}

/** What an organization being deleted asks of observatories, which build on organizations (one may own or join one). */
export interface OrganizationObservatoriesDoor {
  /** Ends the organization's memberships in observatories, each recorded in the observatory's history; how many ended. */
  removeMemberships(options: { t: Pick<InTransaction, "tx" | "now">; actor: UserActor; organizationId: string; organizationName: string }): Promise<number>;
}

const observatoriesDoor = defineDoor<OrganizationObservatoriesDoor>(
  "observatories are not plugged in: import @meridian/domain/observatories in a process that deletes organizations",
);

/** Plugged in by observatories from their index.ts. */
export const removeMembershipsWith = observatoriesDoor.fill;

/** The observatories' door; a process that deletes organizations without having loaded observatories fails loudly. */
export const organizationObservatories = observatoriesDoor.get;

const announcementsDoor = defineDoor<ScopeAnnouncementsDoor>(
  "announcements are not plugged in: import @meridian/domain/announcements in a process that changes scopes",
);
const invitationsDoor = defineDoor<ScopeInvitationsDoor>(
  "invitations are not plugged in: import @meridian/domain/invitations in a process that changes scopes",
);

export const endAnnouncementsWith = announcementsDoor.fill;

export const endInvitationsWith = invitationsDoor.fill;

/** The announcements' door; a process that ends scopes without having loaded announcements fails loudly. */
export const scopeAnnouncements = announcementsDoor.get;

/** The invitations' door; a process that changes a scope's members without having loaded invitations fails loudly. */
export const scopeInvitations = invitationsDoor.get;
