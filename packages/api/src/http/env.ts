import { OpenAPIHono } from "@hono/zod-openapi";
import { AppError, validationError } from "@meridian/domain/platform";
import type { Context, MiddlewareHandler } from "hono";
import type { RequestContext } from "../context";
import { requireCredential } from "./auth-guard";

export interface AppEnv {
  Variables: { requestId: string; ctx: RequestContext };
}

/** PostgreSQL text cannot hold NUL: refuse it in the path or query before a handler sees it (after the credential check). */
function refuseNulInUrl(c: Context<AppEnv>) {
  if (/%00/i.test(c.req.url) || c.req.path.includes("\u0000")) throw new AppError("VALIDATION_FAILED", "The URL must not contain NUL characters");
}

/** Route middleware runs before @hono/zod-openapi's validators: nobody signed out learns what an operation accepts. */
const signedInOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  requireCredential(c.get("ctx"));
  refuseNulInUrl(c);
  await next();
};

const noNulInUrl: MiddlewareHandler<AppEnv> = async (c, next) => {
  refuseNulInUrl(c);
  await next();
};

type RouteMiddleware = MiddlewareHandler | MiddlewareHandler[] | undefined;

/** A route's own middleware, preceded by the credential check when the route declares `security` (one hop: each costs CPU on every request). */
function guardedMiddleware(route: { security?: unknown[]; middleware?: RouteMiddleware }): MiddlewareHandler[] {
  const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return [(route.security && route.security.length > 0 ? signedInOnly : noNulInUrl) as MiddlewareHandler, ...own];
}

/**
 * Every REST router is built with this, so a failed validation is always the same problem+json,
 * and a route that declares `security` in the OpenAPI document is refused (401) to a caller
 * without credentials before its parameters, query or body are looked at. The document and the
 * enforcement come from the same declaration: a new route cannot declare one and forget the other.
 */
export function createRouter() {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError({ issues: result.error.issues });
    },
  });
  const declare = router.openapi;
  router.openapi = ((route, handler, hook) => declare({ ...route, middleware: guardedMiddleware(route) }, handler, hook)) as typeof declare;
  return router;
}
