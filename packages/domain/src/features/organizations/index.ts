// The door of the feature organizations: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { NO_ORGANIZATION_PERMISSIONS, loadOrganizationAccess, requireOrganizationPermission } from "./organization-access";
export {
  createOrganization,
  listOrganizations,
  getOrganization,
  updateOrganization,
  listOrganizationAudit,
  MAX_OWNED_ORGANIZATIONS,
  MAX_ORGANIZATION_MEMBERS,
  MAX_ORGANIZATION_MEMBERSHIPS,
  requireRoomForOrganizationMembership,
  openExternalStorageSecrets,
} from "./organizations";
export { listOrganizationMembers, addOrganizationMember, updateOrganizationMember, removeOrganizationMember, transferOrganizationOwnership } from "./members";
export { deleteOrganization } from "./delete-organization";
export { findStorageDestination, requireStorageDestination } from "./destinations";
export { endAnnouncementsWith, endInvitationsWith, removeMembershipsWith, scopeAnnouncements, scopeInvitations } from "./scope-door";
