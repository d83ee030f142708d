import type { AnyOperation } from "../define-operation";
import { announcementFamilyProcedures, announcementFamilyRestOperations } from "./family";
import { myAnnouncementOperations } from "./mine";
import { systemAnnouncementOperations } from "./system";

/** The tRPC `announcements.*` procedures, by name. */
export const announcementOperations = { ...systemAnnouncementOperations, ...myAnnouncementOperations, ...announcementFamilyProcedures };

/** Every announcement operation with a REST path: the system-only and the caller's own, and the family's for every scope. */
export const announcementRestOperations: AnyOperation[] = [
  ...Object.values(systemAnnouncementOperations),
  ...Object.values(myAnnouncementOperations),
  ...announcementFamilyRestOperations,
];
