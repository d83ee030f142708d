/** The only thing the SPA imports from the server side: types, erased at build time. */
export type { AppRouter } from "./trpc/app-router";
// The job names are the registry's, which declares them into the platform's jobs module when its file is in the
// program: a program that reaches the features only through these types (the SPA's typecheck) must read it too.
import type {} from "@meridian/domain/job-registry";
