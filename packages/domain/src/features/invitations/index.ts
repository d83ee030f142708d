// The door of the feature invitations: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { endInvitationsWith } from "../organizations";
import { endInvitationsOf } from "./end-invitations";
import { endScopeInvitations } from "./invitations";

// The door the scopes declare: an organization, observatory or project going away ends its pending invitations, and a
// person joining or leaving one ends theirs, in the changing transaction; declared here where the feature's surface is.
endInvitationsWith({ endAll: endScopeInvitations, endFor: endInvitationsOf });
export * from "./schemas";
export { createInvitation, listInvitations, revokeInvitation } from "./invitations";
export { acceptInvitation, previewInvitation, requireInvitationToSignUp } from "./accept";
export type { InvitationGrant, InvitationKind } from "@meridian/db";
