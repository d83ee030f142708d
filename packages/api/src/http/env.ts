import { OpenAPIHono } from "@hono/zod-openapi";
import { validationError } from "@meridian/domain";
import type { RequestContext } from "../context";

export interface AppEnv {
  Variables: { requestId: string; ctx: RequestContext };
}

/** Every REST router is built with this, so a failed validation is always the same problem+json. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });
}
