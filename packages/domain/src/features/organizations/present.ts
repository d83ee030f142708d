import type { OrganizationDoc, OrganizationMemberDoc, StoredDocument, UserDoc } from "@meridian/db";
import { ALL_ORGANIZATION_PERMISSIONS } from "./organization-access";

export function presentOrganization(organization: StoredDocument<OrganizationDoc>) {
  const { doc } = organization;
  return {
    id: organization.id,
    name: doc.name,
    shortName: doc.shortName,
    type: doc.type,
    description: doc.description,
    contactEmail: doc.contactEmail,
    ownerId: doc.ownerId,
    externalStorage: doc.externalStorage.map((destination) => ({
      id: destination.id,
      kind: destination.kind,
      label: destination.label,
      settings: destination.settings,
      configuredSecrets: destination.secretKeys,
    })),
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
  };
}

export function presentOrganizationMember(options: { member: StoredDocument<OrganizationMemberDoc>; user: { id: string; doc: UserDoc }; ownerId: string }) {
  const { member, user, ownerId } = options;
  const isOwner = user.id === ownerId;
  return {
    userId: user.id,
    email: user.doc.email,
    name: user.doc.name,
    role: isOwner ? ("owner" as const) : ("member" as const),
    permissions: isOwner ? ALL_ORGANIZATION_PERMISSIONS : member.doc.permissions,
    joinedAt: member.createdAt.toISOString(),
  };
}
