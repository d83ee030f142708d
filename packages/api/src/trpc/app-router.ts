import { createCallerFactory, router } from "./init";
import { adminRouter } from "./routers/admin";
import { authRouter } from "./routers/auth";
import { userRouter } from "./routers/user";
import { observatoriesRouter } from "./routers/observatories";
import { organizationsRouter } from "./routers/organizations";
import { projectOperations } from "../operations/projects";
import { routerOf } from "../operations/trpc-adapter";
import { announcementsRouter } from "./routers/announcements";

export const appRouter = router({
  auth: authRouter,
  user: userRouter,
  organizations: organizationsRouter,
  observatories: observatoriesRouter,
  projects: routerOf(projectOperations),
  announcements: announcementsRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
