import { getConnInfo } from "@hono/node-server/conninfo";
import { authenticateObservatoryKey, authenticateToken, AppError, OBSERVATORY_KEY_PREFIX } from "@meridian/domain";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { ApiServices } from "../context";
import type { AppEnv } from "./env";
import { SESSION_COOKIE } from "./session-cookie";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function clientIp(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    // The last entry is the one our own proxy appended; earlier ones are the client's to forge.
    const forwarded = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    // Requests dispatched in-process (app.request) have no socket.
    return null;
  }
}

/**
 * The origin for links in emails: PUBLIC_URL, else the address and port this connection reached,
 * read from the socket. Never the Host header: a client chooses it, and a reset link built from a
 * forged one would carry the token to someone else's site.
 */
function linkOrigin(c: Context, publicUrl: string | undefined, port: number): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const socket = (c.env as { incoming?: { socket?: { localAddress?: string; localPort?: number; encrypted?: boolean } } } | undefined)?.incoming?.socket;
  const address = socket?.localAddress?.replace(/^::ffff:/, "");
  if (!address || !socket?.localPort) return `http://localhost:${port}`;
  const host = address.includes(":") ? `[${address}]` : address;
  return `${socket.encrypted ? "https" : "http"}://${host}:${socket.localPort}`;
}

function expectedOrigin(c: Context, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : new URL(c.req.url).origin;
}

/** A cookie travels with cross-site requests; only our own pages may use it to change things. */
function isSameOrigin(c: Context, expected: string): boolean {
  const origin = c.req.header("origin");
  if (origin) return origin === expected;
  const fetchSite = c.req.header("sec-fetch-site");
  if (fetchSite) return fetchSite === "same-origin";
  const referer = c.req.header("referer");
  if (referer) {
    try {
      return new URL(referer).origin === expected;
    } catch {
      return false;
    }
  }
  return false;
}

export function requestContext(services: ApiServices): MiddlewareHandler<AppEnv> {
  const { deps } = services;
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const cookie = bearer ? undefined : getCookie(c, SESSION_COOKIE);
    const token = bearer ?? cookie;
    // An observatory key counts only as a bearer token: browsers never hold one.
    const observatory = bearer?.startsWith(OBSERVATORY_KEY_PREFIX) ? await authenticateObservatoryKey({ deps, token: bearer }) : undefined;
    const principal = token && !observatory ? await authenticateToken({ deps, token }) : undefined;
    const credentialSource = principal ? (bearer ? "bearer" : "cookie") : observatory ? "bearer" : undefined;
    if (credentialSource === "cookie" && !SAFE_METHODS.has(c.req.method) && !isSameOrigin(c, expectedOrigin(c, deps.env.PUBLIC_URL))) {
      throw new AppError("CROSS_ORIGIN_REQUEST", "A cookie-authenticated request that changes state must come from this site");
    }
    const secure =
      deps.env.PUBLIC_URL?.startsWith("https:") || c.req.url.startsWith("https:") || (deps.env.TRUST_PROXY && c.req.header("x-forwarded-proto") === "https");
    c.set("ctx", {
      deps,
      principal,
      observatory,
      credentialSource,
      token: principal ? token : undefined,
      client: { ip: clientIp(c, deps.env.TRUST_PROXY), userAgent: c.req.header("user-agent") ?? null },
      requestId: c.get("requestId"),
      secureCookies: Boolean(secure),
      linkOrigin: linkOrigin(c, deps.env.PUBLIC_URL, deps.env.PORT),
    });
    await next();
  };
}
