import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Deps } from "@meridian/domain/platform";

const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/;

/** The headers every HTTP response of this process carries, whichever way it was answered. */
export interface RequestStamp {
  /** Behind a load balancer, which process answered (`X-Served-By`): for operators reading balancing, and for tests. */
  servedBy: string;
  /** The request's id (`X-Request-Id`): the client's own when it sent a usable one, else a new one. */
  requestId(incoming: string | undefined): string;
}

/**
 * Request ids this process makes are a random prefix of its own and a counter, unique across
 * processes without a UUID's random bytes on every request (they were a measurable share of a
 * cached read's CPU). They name a request in logs; nothing relies on them being unguessable.
 */
export function requestStamp(deps: Pick<Deps, "env">): RequestStamp {
  const prefix = randomBytes(9).toString("base64url");
  let counter = 0;
  return {
    servedBy: deps.env.SERVED_BY ?? `${hostname()}:${process.pid}`,
    requestId: (incoming) => (incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : `${prefix}.${(counter++).toString(36)}`),
  };
}
