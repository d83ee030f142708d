import { AppError, isServerAdmin, type Principal } from "@meridian/domain";
import type { RequestContext } from "../context";

export function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  return ctx.principal;
}

export function requireServerAdmin(ctx: RequestContext): Principal {
  const principal = requirePrincipal(ctx);
  if (!isServerAdmin(principal.user)) throw new AppError("FORBIDDEN", "Server administrators only");
  return principal;
}
