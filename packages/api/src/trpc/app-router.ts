import { createCallerFactory, router } from "./init";
import { authRouter } from "./routers/auth";
import { userRouter } from "./routers/user";
import { observatoriesRouter } from "./routers/observatories";
import { organizationsRouter } from "./routers/organizations";
import { projectsRouter } from "./routers/projects";
import { announcementsRouter } from "./routers/announcements";

export const appRouter = router({
  auth: authRouter,
  user: userRouter,
  organizations: organizationsRouter,
  observatories: observatoriesRouter,
  projects: projectsRouter,
  announcements: announcementsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
