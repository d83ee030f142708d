import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { RequestContext } from "../context";

export const SESSION_COOKIE = "session";

export function setSessionCookie(c: Context, ctx: RequestContext, token: string) {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: ctx.secureCookies,
    path: "/",
    maxAge: ctx.deps.env.SESSION_TTL_DAYS * 86_400,
  });
}

export function clearSessionCookie(c: Context, ctx: RequestContext) {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: ctx.secureCookies, httpOnly: true, sameSite: "Lax" });
}
