import { AppError, isServerAdmin, type Principal } from "@meridian/domain";
import type { RequestContext } from "../context";

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal && ctx.observatory) throw new AppError("FORBIDDEN", OBSERVATORY_KEY_LIMITS);
  if (!ctx.principal) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  return ctx.principal;
}

export const OBSERVATORY_KEY_LIMITS =
  "An observatory key acts only as its observatory: it may connect to /ws/observatory, report the statuses of its observations and upload their files";

/** Some credential: a user's, or an observatory key. */
export function requireCredential(ctx: RequestContext): void {
  if (!ctx.principal && !ctx.observatory) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
}

export function requireServerAdmin(ctx: RequestContext): Principal {
  const principal = requirePrincipal(ctx);
  if (!isServerAdmin(principal.user)) throw new AppError("FORBIDDEN", "Server administrators only");
  return principal;
}
