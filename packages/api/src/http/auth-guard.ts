import { AppError, type Principal } from "@meridian/domain/platform";
import { isServerAdmin } from "@meridian/domain/users";
import type { RequestContext } from "../context";
import type { Access } from "../operations/define-operation";

function requirePrincipal(ctx: RequestContext): Principal {
  if (!ctx.principal && ctx.observatory) throw new AppError("FORBIDDEN", OBSERVATORY_KEY_LIMITS);
  if (!ctx.principal) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
  return ctx.principal;
}

const OBSERVATORY_KEY_LIMITS =
  "An observatory key acts only as its observatory: it may connect to /ws/observatory, report the statuses of its observations and upload their files";

/** Some credential: a user's, or an observatory key. */
export function requireCredential(ctx: RequestContext): void {
  if (!ctx.principal && !ctx.observatory) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
}

function requireServerAdmin(ctx: RequestContext): Principal {
  const principal = requirePrincipal(ctx);
  if (!isServerAdmin(principal.user)) throw new AppError("FORBIDDEN", "Server administrators only");
  return principal;
}

/**
 * Everything an operation's access tier refuses, in the order the REST face checks it: no
 * credential (401), then the tier (a user, an administrator, an observatory), then an observatory
 * key on an operation that is not an observatory's.
 */
export function checkAccess(access: Access, ctx: RequestContext): void {
  if (access !== "public") requireCredential(ctx);
  if (access === "signed-in") requirePrincipal(ctx);
  else if (access === "server-admin") requireServerAdmin(ctx);
  else if (access === "observatory" && !ctx.observatory) throw new AppError("FORBIDDEN", "Only an observatory key may do this");
  if (!ctx.principal && ctx.observatory && access !== "observatory" && access !== "observatory-or-user")
    throw new AppError("FORBIDDEN", OBSERVATORY_KEY_LIMITS);
}
