import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Env } from "@meridian/config";
import { OBSERVATORY_KEY_PREFIX } from "@meridian/domain/observatories";
import type { Context } from "hono";
import { parse as parseCookies } from "hono/utils/cookie";
import { SESSION_COOKIE } from "./session-cookie";

/**
 * What the credential and origin rules read of a request, so that REST (a Hono request) and the
 * WebSocket upgrades (a Node request) are judged by the same code.
 */
export interface RequestHeaders {
  /** A header's value; repeated headers joined as Node joins them (cookies with `; `). */
  header(name: string): string | undefined;
  /** Whether the request's own connection is TLS. */
  encrypted: boolean;
}

const isEncrypted = (request: IncomingMessage | undefined) => Boolean((request?.socket as TLSSocket | undefined)?.encrypted);

export function nodeRequestHeaders(request: IncomingMessage): RequestHeaders {
  return {
    header(name) {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    encrypted: isEncrypted(request),
  };
}

/** @hono/node-server answers header reads from the Node request's own parsed headers, so this reads what `nodeRequestHeaders` would. */
export function honoRequestHeaders(c: Context): RequestHeaders {
  return { header: (name) => c.req.header(name), encrypted: isEncrypted((c.env as { incoming?: IncomingMessage } | undefined)?.incoming) };
}

export interface Credential {
  token: string;
  source: "bearer" | "cookie";
  /** An observatory key, known by its prefix: only ever read from the bearer header, since browsers never hold one. */
  observatoryKey: boolean;
}

/**
 * The credential a request presents: `Authorization: Bearer <one token>` (the scheme in any case),
 * else the `session` cookie. Never a token in the URL. The cookie header is parsed by Hono's
 * parser, which skips what it cannot read, so another cookie of the site that is malformed does
 * not hide the session.
 */
export function readCredential(request: Pick<RequestHeaders, "header">): Credential | undefined {
  const bearer = request.header("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer) return { token: bearer, source: "bearer", observatoryKey: bearer.startsWith(OBSERVATORY_KEY_PREFIX) };
  const cookies = request.header("cookie");
  const session = cookies ? parseCookies(cookies, SESSION_COOKIE)[SESSION_COOKIE] : undefined;
  if (!session || session.startsWith(OBSERVATORY_KEY_PREFIX)) return undefined;
  return { token: session, source: "cookie", observatoryKey: false };
}

/**
 * The origin of our own pages: PUBLIC_URL's when set, else the one this request reached, the
 * scheme of its connection and its Host header, for REST and WebSocket upgrades alike (for REST
 * that is the origin of Hono's `c.req.url`, which @hono/node-server builds from these two).
 *
 * The Host header is the client's to choose, and that is harmless here: the check guards a
 * victim's browser, which names our server in Host and the attacking page in Origin, so the two
 * agree only for our own pages (a rebound DNS name that reaches us gets that name's cookies, not
 * ours). The socket's local address would not do: a page opened as `localhost` has that origin.
 * Behind a TLS-terminating proxy the connection is plain HTTP and the Host may be the proxy's
 * choice, so there PUBLIC_URL names the origin (README).
 */
export function expectedOrigin(request: RequestHeaders, env: Pick<Env, "PUBLIC_URL">): string | undefined {
  if (env.PUBLIC_URL) return new URL(env.PUBLIC_URL).origin;
  const host = request.header("host");
  // A Host with a path, user info or spaces is not a host: nothing is same-origin with it.
  if (!host || /[/\\?#@\s]/.test(host)) return undefined;
  try {
    return new URL(`${request.encrypted ? "https" : "http"}://${host}`).origin;
  } catch {
    return undefined;
  }
}

export type OriginEvidence = "same-origin" | "cross-origin" | "none";

/** Where the request says it comes from: its Origin, else Sec-Fetch-Site, else its Referer. */
export function originEvidence(request: RequestHeaders, env: Pick<Env, "PUBLIC_URL">): OriginEvidence {
  const expected = expectedOrigin(request, env);
  const verdict = (same: boolean): OriginEvidence => (same ? "same-origin" : "cross-origin");
  const origin = request.header("origin");
  if (origin) return verdict(origin === expected);
  const fetchSite = request.header("sec-fetch-site");
  if (fetchSite) return verdict(fetchSite === "same-origin");
  const referer = request.header("referer");
  if (!referer) return "none";
  try {
    return verdict(new URL(referer).origin === expected);
  } catch {
    return "cross-origin";
  }
}

/**
 * The same-origin rule for the session cookie (bearer tokens are exempt: no browser adds one on
 * its own). A browser sends the cookie with requests that pages of other sites make, so:
 * - `read` (a REST GET, HEAD or OPTIONS): any request, it changes nothing;
 * - `write` (any other REST method): only with evidence that one of our pages sent it;
 * - `socket` (the `/ws` handshake): unless the evidence says another site sent it. Browsers
 *   always send Origin on a WebSocket handshake (RFC 6455), so one without any evidence is not a
 *   page's, and the cookie it carries was not sent on a victim's behalf.
 */
export function cookieAllowed(request: RequestHeaders, env: Pick<Env, "PUBLIC_URL">, use: "read" | "write" | "socket"): boolean {
  if (use === "read") return true;
  const evidence = originEvidence(request, env);
  return use === "write" ? evidence === "same-origin" : evidence !== "cross-origin";
}
