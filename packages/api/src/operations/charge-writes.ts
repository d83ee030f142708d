import type { RequestContext } from "../context";
import type { BucketAllowance } from "../http/per-minute-limiter";
import type { AnyOperation } from "./define-operation";

/**
 * Whether calls of an operation count against their caller's API_WRITES_PER_MINUTE: every write
 * (by its REST method, whichever face it is called through) but the way out of a restore. Without
 * a rate, one client's loop could grow the tables it writes (finished observations, histories) as
 * fast as the server accepts.
 */
export const chargesWrites = (operation: AnyOperation) => operation.method !== "get" && !operation.allowedDuringMaintenance;

/**
 * Counts a call against its signed-in caller's bucket (an account, whichever credential it came
 * with, or an observatory key), after its input is read and before it runs: 429 RATE_LIMITED with
 * Retry-After past it, and 413 PAYLOAD_TOO_LARGE for a call that costs more than the whole bucket
 * (a bulk naming more items than API_WRITES_PER_MINUTE), since no wait would ever admit it. Either
 * way the operation never starts, so a refused bulk has changed none of its items. An observatory
 * key is charged to its observatory, so that its administrators do not multiply the rate by
 * making more keys. Signed-out calls have their own limits in PostgreSQL (sign-in, sign-up).
 * Taken per call, in the operation layer, so a tRPC batch pays for each of its mutations however
 * its path is written, and the refusal reaches each face in its own shape.
 */
export function chargeWrites(operation: AnyOperation, ctx: RequestContext, input: unknown): void {
  if (!ctx.writeRate || !chargesWrites(operation)) return;
  const key = ctx.principal ? `user:${ctx.principal.user.id}` : ctx.observatory ? `observatory:${ctx.observatory.observatoryId}` : undefined;
  if (!key) return;
  const cost = operation.writeCost ? Math.max(1, operation.writeCost(input)) : 1;
  ctx.writeAllowance = ctx.writeRate.take({ key, cost, now: ctx.deps.now().getTime() });
}

/** RateLimit-Limit, -Remaining and -Reset (seconds) of a counted REST write, as GitLab and others send them. */
export function writeAllowanceHeaders(allowance: BucketAllowance): Record<string, string> {
  return {
    "ratelimit-limit": String(allowance.limit),
    "ratelimit-remaining": String(allowance.remaining),
    "ratelimit-reset": String(allowance.resetSeconds),
  };
}
