import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { tables } from "@meridian/db";
import { authenticateToken, CACHE_CHANNEL, hashSecret, REALTIME_CHANNEL, type CacheChange, type Deps } from "@meridian/domain";
import { eq, inArray } from "drizzle-orm";
import { WebSocketServer, type WebSocket } from "ws";

export interface RealtimeHub {
  status(): { running: boolean; connections: number };
  close(): Promise<void>;
}

const MAX_CLIENT_MESSAGE_BYTES = 4096;

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

const REFUSAL_CODES: Record<number, string> = { 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 500: "INTERNAL" };

function refuse(socket: Duplex, status: number, reason: string) {
  const body = JSON.stringify({ status, title: reason, code: REFUSAL_CODES[status] ?? "INTERNAL" });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

/**
 * `/ws`: signed-in users only (cookie or bearer header, never a token in the URL). Events are
 * published by any process with publishEvent; each process LISTENs and forwards an event to
 * its own sockets of the users the event names.
 */
export async function attachRealtimeHub(options: { server: Server; deps: Deps; publicUrl?: string }): Promise<RealtimeHub> {
  const { server, deps } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  const socketsByUser = new Map<string, Set<WebSocket>>();
  const credentialOf = new Map<WebSocket, { token: string; tokenHash: string }>();
  let running = true;

  /** Closes the socket unless its credential still works, asking the database, not the cache. */
  const recheck = (ws: WebSocket) => {
    const credential = credentialOf.get(ws);
    if (!credential) return;
    authenticateToken({ deps, token: credential.token, fresh: true })
      .then((current) => {
        if (!current && ws.readyState === ws.OPEN) ws.close(4401, "credentials no longer valid");
      })
      .catch((error) => deps.logger.warn({ err: error }, "could not re-check a WebSocket's credentials"));
  };
  // Logout, revoked sessions and keys, password changes and disabled accounts invalidate the
  // request caches of every process; the same notice re-checks the sockets they concern at once.
  const onCredentialChange = (payload: string) => {
    let change: CacheChange;
    try {
      change = JSON.parse(payload) as CacheChange;
    } catch {
      return;
    }
    if (change.kind === "user") for (const ws of socketsByUser.get(change.userId) ?? []) recheck(ws);
    if (change.kind === "token") for (const [ws, credential] of credentialOf) if (credential.tokenHash === change.tokenHash) recheck(ws);
  };
  const credentialSubscription = await deps.sql.listen(CACHE_CHANNEL, onCredentialChange);

  const deliver = async (eventId: string) => {
    const id = Number(eventId);
    if (!Number.isInteger(id)) return;
    const [event] = await deps.db.select().from(tables.realtimeEvents).where(eq(tables.realtimeEvents.id, id)).limit(1);
    if (!event) return;
    const message = JSON.stringify({ type: event.type, data: event.data });
    const userIds = event.announcementId ? await connectedRecipients(event.announcementId) : event.userIds;
    for (const userId of userIds) {
      for (const socket of socketsByUser.get(userId) ?? []) if (socket.readyState === socket.OPEN) socket.send(message);
    }
  };
  // Only this process's connected users are looked up, by primary key, however large the audience.
  const connectedRecipients = async (announcementId: string): Promise<string[]> => {
    const connected = [...socketsByUser.keys()];
    if (connected.length === 0) return [];
    const rows = await deps.db
      .select({ userId: tables.announcementRecipients.userId })
      .from(tables.announcementRecipients)
      .where(inArray(tables.announcementRecipients.id, connected.map((userId) => `${announcementId}:${userId}`)));
    return rows.map((row) => row.userId);
  };
  const subscription = await deps.sql.listen(REALTIME_CHANNEL, (payload) => {
    deliver(payload).catch((error) => deps.logger.error({ err: error }, "could not deliver realtime event"));
  });

  const onUpgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== "/ws") return refuse(socket, 404, "Not Found");
    const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const cookie = bearer ? undefined : parseCookies(request.headers.cookie).get("session");
    if (cookie) {
      // Browsers send cookies on cross-site WebSocket handshakes too; accept only our own pages.
      const expected = options.publicUrl ? new URL(options.publicUrl).origin : `http://${request.headers.host}`;
      const origin = request.headers.origin;
      if (origin && origin !== expected && origin !== expected.replace(/^http:/, "https:")) return refuse(socket, 403, "Forbidden");
    }
    const token = bearer ?? cookie;
    const principal = token ? await authenticateToken({ deps, token }).catch(() => undefined) : undefined;
    if (!principal) return refuse(socket, 401, "Unauthorized");
    wss.handleUpgrade(request, socket, head, (ws) => {
      const userId = principal.user.id;
      const sockets = socketsByUser.get(userId) ?? new Set<WebSocket>();
      sockets.add(ws);
      socketsByUser.set(userId, sockets);
      credentialOf.set(ws, { token: token!, tokenHash: hashSecret(token!) });
      let alive = true;
      ws.on("pong", () => (alive = true));
      const heartbeat = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
        // Expiry has no notice: the periodic re-check closes sockets whose session ran out.
        recheck(ws);
      }, 30_000);
      ws.on("message", (raw) => {
        let message: { type?: unknown };
        try {
          message = JSON.parse(raw.toString());
        } catch {
          return ws.send(JSON.stringify({ type: "error", data: { code: "VALIDATION_FAILED", detail: "Messages must be JSON" } }));
        }
        if (message?.type === "ping") ws.send(JSON.stringify({ type: "pong" }));
        else ws.send(JSON.stringify({ type: "error", data: { code: "VALIDATION_FAILED", detail: "Unknown message type" } }));
      });
      ws.on("close", () => {
        clearInterval(heartbeat);
        credentialOf.delete(ws);
        sockets.delete(ws);
        if (sockets.size === 0) socketsByUser.delete(userId);
      });
      ws.send(JSON.stringify({ type: "welcome", data: { userId } }));
    });
  };
  const upgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(request, socket, head).catch((error) => {
      deps.logger.error({ err: error }, "WebSocket upgrade failed");
      refuse(socket, 500, "Internal Server Error");
    });
  };
  server.on("upgrade", upgradeListener);

  return {
    status: () => ({ running, connections: wss.clients.size }),
    async close() {
      running = false;
      server.off("upgrade", upgradeListener);
      for (const client of wss.clients) client.close(1001, "server shutting down");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await subscription.unlisten().catch(() => undefined);
      await credentialSubscription.unlisten().catch(() => undefined);
    },
  };
}
