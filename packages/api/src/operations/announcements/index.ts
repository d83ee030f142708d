import type { AnyOperation } from "../define-operation";
import { myAnnouncementOperations } from "./mine";
import { scopeAnnouncementProcedures } from "./procedures";
import { scopedAnnouncementOperations } from "./scoped";
import { systemAnnouncementOperations } from "./system";

/** The tRPC `announcements.*` procedures, by name. */
export const announcementOperations = { ...systemAnnouncementOperations, ...myAnnouncementOperations, ...scopeAnnouncementProcedures };

/** Every announcement operation with a REST path, the per-scope ones included. */
export const announcementRestOperations: AnyOperation[] = [
  ...Object.values(announcementOperations),
  ...scopedAnnouncementOperations("observatory", "observatories"),
  ...scopedAnnouncementOperations("organization", "organizations"),
  ...scopedAnnouncementOperations("project", "projects"),
];
