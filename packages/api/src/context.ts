import type { ClientInfo } from "@meridian/domain/auth";
import type { ObservatoryPrincipal } from "@meridian/domain/observatories";
import type { Deps, Principal } from "@meridian/domain/platform";
import type { BucketAllowance, PerMinuteLimiter } from "./http/per-minute-limiter";

/**
 * What a handler knows about the request; built once by the HTTP layer for REST and tRPC alike,
 * as a plain object of values: getters on it (to compute `client` or `linkOrigin` lazily) made
 * a cached read 25 % slower in bench/hot-reads.mjs, and a copy per request cost more still.
 */
export interface RequestContext {
  deps: Deps;
  principal: Principal | undefined;
  /** Set instead of `principal` when the credential is an observatory key, which acts only as its observatory. */
  observatory?: ObservatoryPrincipal;
  /** How the principal was presented; cookies need the same-origin check. */
  credentialSource: "cookie" | "bearer" | undefined;
  token: string | undefined;
  client: ClientInfo;
  requestId: string;
  secureCookies: boolean;
  /** This site's origin for links in emails: PUBLIC_URL, else the address the connection reached (never the Host header). */
  linkOrigin: string;
  /** Sets (or, with null, clears) the session cookie on the HTTP response. */
  setSessionToken(token: string | null): void;
  /**
   * This process's count of each principal's writes (`operations/charge-writes.ts`); contexts a
   * test builds by hand for a tRPC caller have none, and their calls are not counted.
   */
  writeRate?: PerMinuteLimiter;
  /** What the caller may still write, once a counted write of this request was charged. */
  writeAllowance?: BucketAllowance;
}

export interface ApiServices {
  deps: Deps;
  startedAt: Date;
  websocketStatus: () => { running: boolean; connections: number };
  /** True once the process has begun to shut down: readiness answers 503 so load balancers stop sending. */
  isDraining?: () => boolean;
}
