/** The only thing the SPA imports from the server side: types, erased at build time. */
export type { AppRouter } from "./trpc/app-router";
