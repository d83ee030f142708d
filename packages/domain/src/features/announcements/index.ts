// The door of the feature announcements: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { endAnnouncementsWith } from "../organizations";
import { cancelScopeAnnouncements } from "./lifecycle";

// The door the scopes declare: an organization, observatory or project being deleted has its announcements cancelled in
// the deleting transaction, declared here where the feature's surface is.
endAnnouncementsWith({ cancelAll: cancelScopeAnnouncements });
export * from "./schemas";
export type { AnnouncementScopeRef, ScopedKind } from "./scope-access";
export { createSystemAnnouncement, createScopedAnnouncement, previewSystemRecipients, previewScopedRecipients } from "./create";
export { MAX_ACTIVE_ANNOUNCEMENTS, MAX_SHOWING_ANNOUNCEMENTS, announcementScopeLockKey } from "./active-cap";
export { cancelAnnouncement, acknowledgeAnnouncement, markAnnouncementsSeen, announceStarted } from "./lifecycle";
export {
  listSystemAnnouncements,
  listScopeActiveAnnouncements,
  listScopeAnnouncementHistory,
  listPendingAnnouncements,
  listPendingAnnouncementsAsJson,
  listMyCurrentAnnouncements,
  countActiveObservatoryAnnouncements,
  activeObservatoryAnnouncements,
  getAnnouncementRecipients,
} from "./queries";
export { listManagedAnnouncements, getAnnouncementStats, listAnnouncementTargetOptions } from "./manage";
export { deliverAnnouncementEmails, runAnnouncementMaintenance } from "./emails";
export { withdrawDisabledRecipient } from "./lifecycle";
