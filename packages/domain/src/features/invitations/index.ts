// The door of the feature invitations: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./schemas";
export { createInvitation, listInvitations, revokeInvitation } from "./invitations";
export { acceptInvitation, previewInvitation } from "./accept";
export type { InvitationGrant, InvitationKind } from "@meridian/db";
