// The door of the feature observatories: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { removeMembershipsWith } from "../organizations";
import { removeDeletedOrganization } from "./organization-deleted";

// The door organizations declare: an organization being deleted leaves every observatory it was a member of, each
// leaving in that observatory's history; declared here where the feature's surface is.
removeMembershipsWith({ removeMemberships: removeDeletedOrganization });
export * from "./schemas";
export {
  createObservatory,
  listObservatories,
  getObservatory,
  getMyObservatoryPermissions,
  transferObservatoryOwnership,
  listObservatoryHistory,
  MAX_OWNED_OBSERVATORIES,
  MAX_ORGANIZATION_OBSERVATORIES,
  MAX_OBSERVATORY_USER_MEMBERS,
  MAX_OBSERVATORY_ORGANIZATION_MEMBERS,
} from "./observatories";
export { observatoryMemberWhere, requireRoomForObservatoryMember } from "./observatories";
export { holdLiveObservatory } from "./remove";
export { observatoryTimeZone, observatoryTiming } from "./time-and-timing";
export { updateObservatory } from "./settings";
export {
  listObservatoryMembers,
  addObservatoryUser,
  updateObservatoryUser,
  removeObservatoryUser,
  addObservatoryOrganization,
  updateObservatoryOrganization,
  removeObservatoryOrganization,
} from "./members";
export * from "./keys";
export {
  observatoryHello,
  observatoriesSeen,
  observatoryConfig,
  observatorySafety,
  observatoryWeather,
  observatoryGone,
  markSilentObservatoriesOffline,
} from "./connection";
export { claimObservatoryConnection, CONNECTION_CLAIMED_EVENT, LAST_SEEN_WRITE_INTERVAL_MS, readPresence } from "./presence";
export { removeObservatory, OBSERVATORY_REMOVED_REASON } from "./remove";
export * from "./names";
export { recordHistory } from "./observatories";
export { moveObservationsWith } from "./observations-door";
export { observatoryCreatedAtSql, observatoryUnavailableSince, reassignAfterMs } from "./availability";
