import type { IncomingMessage } from "node:http";
import { authenticateToken } from "@meridian/domain/auth";
import { authenticateObservatoryKey } from "@meridian/domain/observatories";
import { AppError } from "@meridian/domain/platform";
import type { Context } from "hono";
import type { ApiServices, RequestContext } from "../context";
import type { AppEnv } from "./env";
import { cookieAllowed, honoRequestHeaders, nodeRequestHeaders, readCredential, type RequestHeaders } from "./credentials";
import { clearSessionCookie, setSessionCookie } from "./session-cookie";
import { PerMinuteLimiter } from "./per-minute-limiter";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** What a request's connection tells: absent for requests dispatched in-process (app.request). */
type RequestSocket = { localAddress?: string; localPort?: number; remoteAddress?: string; encrypted?: boolean };

/** What the context is built from, whichever way the request came in (Hono's pipeline or the direct reads of `direct-reads.ts`). */
export interface RequestFacts {
  method: string;
  headers: RequestHeaders;
  socket: RequestSocket | undefined;
  requestId: string;
  /** Sets (a token) or clears (null) the session cookie on this request's response. */
  setSessionToken(ctx: RequestContext, token: string | null): void;
}

function clientIp(headers: RequestHeaders, socket: RequestSocket | undefined, trustProxy: boolean): string | null {
  if (trustProxy) {
    // The last entry is the one our own proxy appended; earlier ones are the client's to forge.
    const forwarded = headers.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  return socket?.remoteAddress ?? null;
}

/**
 * The origin for links in emails: PUBLIC_URL, else the address and port this connection reached,
 * read from the socket. Never the Host header: a client chooses it, and a reset link built from a
 * forged one would carry the token to someone else's site. Made once per connection (a kept-alive
 * connection carries many requests, each of which would read the socket's address again).
 */
function linkOrigins(publicUrl: string | undefined, port: number): (socket: RequestSocket | undefined) => string {
  if (publicUrl) {
    const origin = new URL(publicUrl).origin;
    return () => origin;
  }
  // Requests dispatched in-process (app.request) have no socket, and a socket may not know its address.
  const fallback = `http://localhost:${port}`;
  const ofSocket = new WeakMap<RequestSocket, string>();
  return (socket) => {
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

/**
 * Builds a request's context from its credential; refuses a cookie write from another site. The
 * one place a request's principal, client and origins are decided, for Hono's pipeline and the
 * direct reads alike.
 */
export function contextBuilder(services: ApiServices): (facts: RequestFacts) => Promise<RequestContext> {
  const { deps } = services;
  const { env } = deps;
  const linkOrigin = linkOrigins(env.PUBLIC_URL, env.PORT);
  const publicHttps = env.PUBLIC_URL?.startsWith("https:") ?? false;
  const writeRate = new PerMinuteLimiter(env.API_WRITES_PER_MINUTE);
  return async (facts) => {
    const { headers, socket } = facts;
    const credential = readCredential(headers);
    const observatory = credential?.observatoryKey ? await authenticateObservatoryKey({ deps, token: credential.token }) : undefined;
    const principal = credential && !credential.observatoryKey ? await authenticateToken({ deps, token: credential.token }) : undefined;
    const credentialSource = principal || observatory ? credential?.source : undefined;
    if (credentialSource === "cookie" && !cookieAllowed(headers, env, SAFE_METHODS.has(facts.method) ? "read" : "write")) {
      throw new AppError("CROSS_ORIGIN_REQUEST", "A cookie-authenticated request that changes state must come from this site");
    }
    const secure = publicHttps || Boolean(socket?.encrypted) || (env.TRUST_PROXY && headers.header("x-forwarded-proto") === "https");
    const ctx: RequestContext = {
      deps,
      principal,
      observatory,
      credentialSource,
      token: principal ? credential?.token : undefined,
      client: { ip: clientIp(headers, socket, env.TRUST_PROXY), userAgent: headers.header("user-agent") ?? null },
      requestId: facts.requestId,
      secureCookies: secure,
      linkOrigin: linkOrigin(socket),
      writeRate,
      // A method, not an arrow property: tsx names every arrow property (`__name`, a defineProperty per request).
      setSessionToken(token) {
        facts.setSessionToken(ctx, token);
      },
    };
    return ctx;
  };
}

const honoSessionToken = (c: Context) => (ctx: RequestContext, token: string | null) => (token ? setSessionCookie(c, ctx, token) : clearSessionCookie(c, ctx));

/** The context of a request in Hono's pipeline (`c.get("ctx")`), read from Node's request when there is one. */
export function requestContext(build: (facts: RequestFacts) => Promise<RequestContext>): (c: Context<AppEnv>) => Promise<void> {
  return async (c) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const ctx = await build({
      method: c.req.method,
      headers: incoming ? nodeRequestHeaders(incoming) : honoRequestHeaders(c),
      socket: incoming?.socket,
      requestId: c.get("requestId"),
      setSessionToken: honoSessionToken(c),
    });
    c.set("ctx", ctx);
  };
}
