import { AppError } from "@meridian/domain/platform";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./env";

export const MAX_JSON_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `Request bodies may be at most ${MAX_JSON_BODY_BYTES} bytes`);

/**
 * 413 PAYLOAD_TOO_LARGE for a body past MAX_JSON_BODY_BYTES. A REST operation runs it after its
 * credential check (rest-adapter.ts), so a protected one answers 401 before it looks at the input.
 */
export const jsonBodyLimit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw tooLarge();
  },
});

/**
 * tRPC's twin: the batch is measured before tRPC parses it, so a caller without credentials whose
 * batch names a procedure that needs them gets the 401 REST gives (before the body), not the 413.
 * `needsCredentials` tells from the path (`/trpc/a.b,c.d`) whether some procedure is not public.
 */
export const trpcBodyLimit = (needsCredentials: (path: string) => boolean) =>
  bodyLimit({
    maxSize: MAX_JSON_BODY_BYTES,
    onError: (c: Context<AppEnv>) => {
      const ctx = c.get("ctx");
      if (!ctx.principal && !ctx.observatory && needsCredentials(c.req.path)) throw new AppError("UNAUTHENTICATED", "Sign in or send a valid bearer token");
      throw tooLarge();
    },
  });
