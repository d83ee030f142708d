import { AppError, QueryScope, runInQueryScope } from "@meridian/domain";
import type { Context } from "hono";
import type { AppEnv } from "./env";
import { DATABASE_RETRY_AFTER_SECONDS, problemResponse } from "./problem";

/**
 * Every request is answered within `timeoutMs` (REQUEST_TIMEOUT_MS): past it, 503
 * SERVICE_UNAVAILABLE with Retry-After, and the request's queries are given up (query-scope.ts):
 * the one running is cancelled on its backend, which frees its connection (a transaction around it
 * rolls back), one waiting for a connection leaves the queue, and one it starts later fails at once.
 * The deadline covers the work until the answer is ready, not a streamed answer's body.
 */
export function requestDeadline(timeoutMs: number) {
  return async (c: Context<AppEnv>, next: () => Promise<unknown>) => {
    const scope = new QueryScope();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), timeoutMs);
    });
    const work = runInQueryScope(scope, next);
    try {
      if ((await Promise.race([work, expired])) !== "expired") return undefined;
    } finally {
      clearTimeout(timer);
    }
    scope.end(`the request took longer than REQUEST_TIMEOUT_MS (${timeoutMs} ms)`);
    // What the given-up work still throws (its cancelled query) has no one to answer.
    work.catch(() => undefined);
    return problemResponse(
      c,
      new AppError("SERVICE_UNAVAILABLE", `The request took longer than ${timeoutMs} ms and was stopped; try again shortly`, {
        retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      }),
    );
  };
}
