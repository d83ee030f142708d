import {
  organizationMembersCollection,
  organizationPermissionKeys,
  organizationsCollection,
  tables,
  type Executor,
  type OrganizationDoc,
  type OrganizationPermissions,
  type StoredDocument,
} from "@meridian/db";
import { and, eq } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import { AppError } from "../../platform/errors";

export type OrganizationPermission = (typeof organizationPermissionKeys)[number];

export const ALL_ORGANIZATION_PERMISSIONS = Object.fromEntries(organizationPermissionKeys.map((key) => [key, true])) as OrganizationPermissions;
export const NO_ORGANIZATION_PERMISSIONS = Object.fromEntries(organizationPermissionKeys.map((key) => [key, false])) as OrganizationPermissions;

export interface OrganizationAccess {
  organization: StoredDocument<OrganizationDoc>;
  isOwner: boolean;
  isMember: boolean;
  /** The actor's own permissions; the owner's all read true. Server admins get all too. */
  permissions: OrganizationPermissions;
}

/**
 * Members and server admins see an organization; for anyone else it does not exist (404).
 *
 * `forUpdate` (inside a transaction) locks the organization row first and reads the actor's membership under that
 * lock, so the owner and the organization's existence seen here hold until the transaction ends. Every write that
 * depends on them takes it, before any member row: member changes, transfer, deletion, settings. An organization
 * deleted while the caller waited for the lock answers 404 like one that never existed.
 */
export async function loadOrganizationAccess(options: {
  db: Executor;
  actor: UserActor;
  organizationId: string;
  forUpdate?: boolean;
}): Promise<OrganizationAccess> {
  const { db, actor, organizationId, forUpdate = false } = options;
  const organization = await organizationsCollection.get(db, organizationId, { forUpdate });
  if (!organization) throw new AppError("NOT_FOUND", "No such organization");
  const membership = await organizationMembersCollection.findOne(
    db,
    and(eq(tables.organizationMembers.organizationId, organizationId), eq(tables.organizationMembers.userId, actor.id))!,
  );
  const isOwner = organization.doc.ownerId === actor.id;
  if (!membership && !isOwner && !actor.isServerAdmin) throw new AppError("NOT_FOUND", "No such organization");
  const permissions = isOwner || actor.isServerAdmin ? ALL_ORGANIZATION_PERMISSIONS : (membership?.doc.permissions ?? NO_ORGANIZATION_PERMISSIONS);
  return { organization, isOwner, isMember: Boolean(membership) || isOwner, permissions };
}

export function requireOrganizationPermission({ access, permission }: { access: OrganizationAccess; permission: OrganizationPermission }) {
  // Deprecated: billing is stored but grants nothing.
  if (permission === "can_manage_billing" || !access.permissions[permission]) {
    throw new AppError("FORBIDDEN", `This needs ${permission} in the organization`);
  }
}
