import { createCallerFactory, router } from "./init";
import { authRouter } from "./routers/auth";
import { userRouter } from "./routers/user";
import { observatoriesRouter } from "./routers/observatories";
import { organizationsRouter } from "./routers/organizations";
import { projectsRouter } from "./routers/projects";

export const appRouter = router({
  auth: authRouter,
  user: userRouter,
  organizations: organizationsRouter,
  observatories: observatoriesRouter,
  projects: projectsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
