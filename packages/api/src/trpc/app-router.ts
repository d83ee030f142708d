import { createCallerFactory, router } from "./init";
import { adminOperations } from "../operations/admin";
import { analyticsOperations } from "../operations/analytics";
import { backupOperations, maintenanceOperations } from "../operations/backups";
import { cleanupOperations } from "../operations/cleanup";
import { authRouter } from "../operations/auth-router";
import { userOperations } from "../operations/user";
import { observatoryOperations } from "../operations/observatories";
import { observationOperations } from "../operations/observations";
import { frameOperations } from "../operations/frames-search";
import { integrityOperations } from "../operations/integrity";
import { invitationOperations } from "../operations/invitations";
import { networkOperations } from "../operations/network";
import { organizationOperations } from "../operations/organizations";
import { projectOperations } from "../operations/projects";
import { targetOperations } from "../operations/targets";
import { routerOf } from "../operations/trpc-adapter";
import { announcementOperations } from "../operations/announcements";

export const appRouter = router({
  auth: authRouter,
  user: routerOf(userOperations),
  organizations: routerOf(organizationOperations),
  observatories: routerOf(observatoryOperations),
  projects: routerOf(projectOperations),
  invitations: routerOf(invitationOperations),
  observations: routerOf(observationOperations),
  network: routerOf(networkOperations),
  frames: routerOf(frameOperations),
  targets: routerOf(targetOperations),
  announcements: routerOf(announcementOperations),
  admin: routerOf(adminOperations),
  integrity: routerOf(integrityOperations),
  analytics: routerOf(analyticsOperations),
  cleanup: routerOf(cleanupOperations),
  backups: routerOf(backupOperations),
  maintenance: routerOf(maintenanceOperations),
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
