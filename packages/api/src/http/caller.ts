import { actorFromUser, type UserActor } from "@meridian/domain";
import type { Context } from "hono";
import type { AppEnv } from "./env";
import { requirePrincipal } from "./auth-guard";

/** The signed-in actor of a REST handler (401 when there is none) and the domain deps. */
export function actorOf(c: Context<AppEnv>): { actor: UserActor; deps: ReturnType<Context<AppEnv>["get"]>["deps"] } {
  const ctx = c.get("ctx");
  return { actor: actorFromUser(requirePrincipal(ctx).user), deps: ctx.deps };
}
