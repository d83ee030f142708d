import { getConnInfo } from "@hono/node-server/conninfo";
import { authenticateObservatoryKey, authenticateToken, AppError } from "@meridian/domain";
import type { Context } from "hono";
import type { ApiServices, RequestContext } from "../context";
import type { AppEnv } from "./env";
import { cookieAllowed, honoRequestHeaders, readCredential } from "./credentials";
import { clearSessionCookie, setSessionCookie } from "./session-cookie";

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

type LinkSocket = { localAddress?: string; localPort?: number; encrypted?: boolean };

/**
 * The origin for links in emails: PUBLIC_URL, else the address and port this connection reached,
 * read from the socket. Never the Host header: a client chooses it, and a reset link built from a
 * forged one would carry the token to someone else's site. Made once per connection (a kept-alive
 * connection carries many requests, each of which would read the socket's address again).
 */
function linkOrigins(publicUrl: string | undefined, port: number): (c: Context) => string {
  if (publicUrl) {
    const origin = new URL(publicUrl).origin;
    return () => origin;
  }
  // Requests dispatched in-process (app.request) have no socket, and a socket may not know its address.
  const fallback = `http://localhost:${port}`;
  const ofSocket = new WeakMap<LinkSocket, string>();
  return (c) => {
    const socket = (c.env as { incoming?: { socket?: LinkSocket } } | undefined)?.incoming?.socket;
    if (!socket) return fallback;
    let origin = ofSocket.get(socket);
    if (origin === undefined) {
      const address = socket.localAddress?.replace(/^::ffff:/, "");
      const host = address?.includes(":") ? `[${address}]` : address;
      origin = address && socket.localPort ? `${socket.encrypted ? "https" : "http"}://${host}:${socket.localPort}` : fallback;
      ofSocket.set(socket, origin);
    }
    return origin;
  };
}

/** Builds the request's context (`c.get("ctx")`) from its credential; refuses a cookie write from another site. */
export function requestContext(services: ApiServices): (c: Context<AppEnv>) => Promise<void> {
  const { deps } = services;
  const linkOrigin = linkOrigins(deps.env.PUBLIC_URL, deps.env.PORT);
  return async (c) => {
    const request = honoRequestHeaders(c);
    const credential = readCredential(request);
    const observatory = credential?.observatoryKey ? await authenticateObservatoryKey({ deps, token: credential.token }) : undefined;
    const principal = credential && !credential.observatoryKey ? await authenticateToken({ deps, token: credential.token }) : undefined;
    const credentialSource = principal || observatory ? credential?.source : undefined;
    if (credentialSource === "cookie" && !cookieAllowed(request, deps.env, SAFE_METHODS.has(c.req.method) ? "read" : "write")) {
      throw new AppError("CROSS_ORIGIN_REQUEST", "A cookie-authenticated request that changes state must come from this site");
    }
    const secure =
      deps.env.PUBLIC_URL?.startsWith("https:") || c.req.url.startsWith("https:") || (deps.env.TRUST_PROXY && c.req.header("x-forwarded-proto") === "https");
    const ctx: RequestContext = {
      deps,
      principal,
      observatory,
      credentialSource,
      token: principal ? credential?.token : undefined,
      client: { ip: clientIp(c, deps.env.TRUST_PROXY), userAgent: c.req.header("user-agent") ?? null },
      requestId: c.get("requestId"),
      secureCookies: Boolean(secure),
      linkOrigin: linkOrigin(c),
      setSessionToken: (token) => (token ? setSessionCookie(c, ctx, token) : clearSessionCookie(c, ctx)),
    };
    c.set("ctx", ctx);
  };
}
