import { adminOperations } from "./admin";
import { analyticsOperations } from "./analytics";
import { backupOperations, maintenanceOperations } from "./backups";
import { cleanupOperations } from "./cleanup";
import { announcementRestOperations } from "./announcements";
import { authOperations } from "./auth";
import type { AnyOperation } from "./define-operation";
import { frameOperations } from "./frames-search";
import { integrityOperations } from "./integrity";
import { invitationOperations } from "./invitations";
import { networkOperations } from "./network";
import { observationOperations } from "./observations";
import { observatoryOperations } from "./observatories";
import { organizationOperations } from "./organizations";
import { projectOperations } from "./projects";
import { targetOperations } from "./targets";
import { userOperations } from "./user";

/**
 * Every operation with a REST face, by feature; the tRPC router (trpc/app-router.ts) names the
 * same records. Health needs the process's services and is added by the app.
 */
export const allOperations: AnyOperation[] = [
  ...[
    authOperations,
    userOperations,
    adminOperations,
    organizationOperations,
    observatoryOperations,
    projectOperations,
    invitationOperations,
    observationOperations,
    networkOperations,
    frameOperations,
    targetOperations,
    integrityOperations,
    analyticsOperations,
    cleanupOperations,
    backupOperations,
    maintenanceOperations,
  ].flatMap((operations) => Object.values(operations)),
  ...announcementRestOperations,
];
