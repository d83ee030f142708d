import { AppError, QueryScope, runInQueryScope } from "@meridian/domain/platform";
import type { Context } from "hono";
import type { AppEnv } from "./env";
import { DATABASE_RETRY_AFTER_SECONDS, problemResponse } from "./problem";

/** The answer to a request given up at its deadline. */
export const pastDeadline = (timeoutMs: number) =>
  new AppError("SERVICE_UNAVAILABLE", `The request took longer than ${timeoutMs} ms and was stopped; try again shortly`, {
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });

/**
 * Runs `work` with its queries in a scope of their own (query-scope.ts) and answers what it gives, or
 * `expired` once `timeoutMs` passed: then its queries are given up: the one running is cancelled on its
 * backend, which frees its connection (a transaction around it rolls back), one waiting for a connection
 * leaves the queue, and one it starts later fails at once.
 */
export async function withinDeadline<T>(timeoutMs: number, work: () => Promise<T>): Promise<{ done: T } | "expired"> {
  const scope = new QueryScope();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), timeoutMs);
  });
  const running = runInQueryScope(scope, work);
  try {
    const outcome = await Promise.race([running.then((done) => ({ done })), expired]);
    if (outcome !== "expired") return outcome;
  } finally {
    clearTimeout(timer);
  }
  scope.end(`the request took longer than REQUEST_TIMEOUT_MS (${timeoutMs} ms)`);
  // What the given-up work still throws (its cancelled query) has no one to answer.
  running.catch(() => undefined);
  return "expired";
}

/**
 * Every request is answered within `timeoutMs` (REQUEST_TIMEOUT_MS): past it, 503
 * SERVICE_UNAVAILABLE with Retry-After, and the request's queries are given up (withinDeadline).
 * The deadline covers the work until the answer is ready, not a streamed answer's body.
 */
export function requestDeadline(timeoutMs: number) {
  return async (c: Context<AppEnv>, next: () => Promise<unknown>) => {
    if ((await withinDeadline(timeoutMs, next)) !== "expired") return undefined;
    return problemResponse(c, pastDeadline(timeoutMs));
  };
}
