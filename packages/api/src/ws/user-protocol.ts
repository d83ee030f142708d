import type { IncomingMessage } from "node:http";
import { authenticateToken, hashSecret, type Deps } from "@meridian/domain";
import { z } from "zod";
import { defineProtocol, userRouteKey, type Admission, type Refusal } from "./protocol";

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of header?.split(";") ?? []) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    try {
      cookies.set(name, decodeURIComponent(part.slice(index + 1).trim()));
    } catch {
      // A malformed cookie (of anything else on this site) must not break the handshake.
    }
  }
  return cookies;
}

/** Signed-in users only: the session cookie or a bearer header, never a token in the URL. */
async function authenticateUser(request: IncomingMessage, deps: Deps): Promise<Admission<{ userId: string }> | Refusal> {
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  const cookie = bearer ? undefined : parseCookies(request.headers.cookie).get("session");
  if (cookie) {
    // Browsers send cookies on cross-site WebSocket handshakes too; accept only our own pages.
    const publicUrl = deps.env.PUBLIC_URL;
    const expected = publicUrl ? new URL(publicUrl).origin : `http://${request.headers.host}`;
    const origin = request.headers.origin;
    if (origin && origin !== expected && origin !== expected.replace(/^http:/, "https:")) return { status: 403 };
  }
  const token = bearer ?? cookie;
  const principal = token ? await authenticateToken({ deps, token }).catch(() => undefined) : undefined;
  if (!principal || !token) return { status: 401 };
  const userId = principal.user.id;
  return { session: { userId }, routeKey: userRouteKey(userId), credential: { token, tokenHash: hashSecret(token) } };
}

const userMessages = z.discriminatedUnion("type", [z.object({ type: z.literal("ping") })]);

/**
 * `/ws`, the contract's user channel: the server pushes events to each user; the client may send
 * `{type: "ping"}` and gets `{type: "pong"}`. Errors are `{type: "error", data: {code, detail}}`.
 */
export const userProtocol = defineProtocol({
  path: "/ws",
  maxPayloadBytes: 4096,
  authenticate: authenticateUser,
  messages: userMessages,
  handlers: { ping: () => undefined },
  replies: {
    ack: (message) => (message.type === "ping" ? { type: "pong" } : { type: "ack", data: { type: message.type } }),
    error: (_message, code, detail) => ({ type: "error", data: { code, detail } }),
  },
  welcome: (session) => ({ type: "welcome", data: { userId: session.userId } }),
});
