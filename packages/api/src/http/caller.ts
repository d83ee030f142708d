import { callerFromUser, type Caller } from "@meridian/domain";
import type { Context } from "hono";
import type { AppEnv } from "./env";
import { requirePrincipal } from "./auth-guard";

/** The signed-in caller of a REST handler (401 when there is none) and the domain deps. */
export function callerOf(c: Context<AppEnv>): { caller: Caller; deps: ReturnType<Context<AppEnv>["get"]>["deps"] } {
  const ctx = c.get("ctx");
  return { caller: callerFromUser(requirePrincipal(ctx).user), deps: ctx.deps };
}
