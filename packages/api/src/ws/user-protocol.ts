import type { IncomingMessage } from "node:http";
import { authenticateToken, hashSecret } from "@meridian/domain/auth";
import { type Deps } from "@meridian/domain/platform";
import { z } from "zod";
import { cookieAllowed, nodeRequestHeaders, readCredential } from "../http/credentials";
import { defineProtocol, userRouteKey, type Admission, type Refusal } from "./protocol";

/** Signed-in users only: the session cookie or a bearer header, never a token in the URL. */
async function authenticateUser(request: IncomingMessage, deps: Deps): Promise<Admission<{ userId: string }> | Refusal> {
  const headers = nodeRequestHeaders(request);
  const credential = readCredential(headers);
  if (!credential || credential.observatoryKey) return { status: 401 };
  // Browsers send cookies on cross-site WebSocket handshakes too; accept only our own pages.
  if (credential.source === "cookie" && !cookieAllowed(headers, deps.env, "socket")) return { status: 403 };
  const { token } = credential;
  // A lookup that failed is the hub's 503 or 500, not a 401 that would sign the page out.
  const principal = await authenticateToken({ deps, token });
  if (!principal) return { status: 401 };
  const userId = principal.user.id;
  return { session: { userId }, routeKey: userRouteKey(userId), credential: { token, tokenHash: hashSecret(token) } };
}

const userMessages = z.discriminatedUnion("type", [z.object({ type: z.literal("ping") })]);

/**
 * `/ws`, the user channel of docs/api-contract.md: the server pushes events to each user; the client may send
 * `{type: "ping"}` and gets `{type: "pong"}`. Errors are `{type: "error", data: {code, detail}}`. A user holds at
 * most WS_CONNECTIONS_PER_USER sockets on one server process; the upgrade beyond it is answered 429 RATE_LIMITED.
 */
export const userProtocol = defineProtocol({
  path: "/ws",
  maxPayloadBytes: 4096,
  authenticate: authenticateUser,
  // Each of a user's pages holds one; more than this on one process is a client gone astray.
  socketsPerRouteKey: (env) => env.WS_CONNECTIONS_PER_USER,
  messages: userMessages,
  handlers: { ping: () => undefined },
  replies: {
    ack: (message) => (message.type === "ping" ? { type: "pong" } : { type: "ack", data: { type: message.type } }),
    error: (_message, code, detail) => ({ type: "error", data: { code, detail } }),
  },
  welcome: (session) => ({ type: "welcome", data: { userId: session.userId } }),
});
