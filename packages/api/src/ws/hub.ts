import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { authenticateToken, CACHE_CHANNEL, loadRealtimeEvent, REALTIME_CHANNEL, recipientsAmong, type CacheChange, type Deps } from "@meridian/domain";
import { WebSocketServer, type WebSocket } from "ws";
import { handleMessage } from "./handle-message";
import { observatoryRouteKey, userRouteKey, type Credential, type ProtocolDefinition, type RouteKey } from "./protocol";

export interface WebSocketHub {
  status(): { running: boolean; connections: number };
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProtocol = ProtocolDefinition<any, any>;

const REFUSAL_CODES: Record<number, string> = { 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 500: "INTERNAL" };
const REFUSAL_REASONS: Record<number, string> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error" };
const HEARTBEAT_MS = 30_000;

function refuse(socket: Duplex, status: number) {
  const reason = REFUSAL_REASONS[status] ?? "Error";
  const body = JSON.stringify({ status, title: reason, code: REFUSAL_CODES[status] ?? "INTERNAL" });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Serves every WebSocket protocol on the HTTP server: routes each upgrade by path to its
 * protocol, keeps sockets by route key (a user or an observatory), and delivers published events
 * (NOTIFY on `meridian_events`, from any process) to the sockets of the keys they name. Credential
 * changes (NOTIFY on `meridian_cache`) re-check the sockets they concern at once.
 */
export async function attachWebSocketHub(options: { server: Server; deps: Deps; protocols: AnyProtocol[] }): Promise<WebSocketHub> {
  const { server, deps } = options;
  const protocolsByPath = new Map(options.protocols.map((protocol) => [protocol.path, protocol]));
  const servers = new Map(options.protocols.map((protocol) => [protocol, new WebSocketServer({ noServer: true, maxPayload: protocol.maxPayloadBytes })]));
  const socketsByKey = new Map<RouteKey, Set<WebSocket>>();
  const credentialOf = new Map<WebSocket, Credential>();
  const protocolOf = new Map<WebSocket, AnyProtocol>();
  let running = true;

  /** Closes the socket unless its credential still works, asking the database, not the cache. */
  const recheck = (ws: WebSocket) => {
    const credential = credentialOf.get(ws);
    if (!credential) return;
    const stillValid = credential.stillValid ?? (async () => Boolean(await authenticateToken({ deps, token: credential.token, fresh: true })));
    stillValid()
      .then((valid) => {
        if (!valid && ws.readyState === ws.OPEN) ws.close(4401, "credentials no longer valid");
      })
      .catch((error) => deps.logger.warn({ err: error }, "could not re-check a WebSocket's credentials"));
  };
  const credentialSubscription = await deps.sql.listen(CACHE_CHANNEL, (payload) => {
    let change: CacheChange;
    try {
      change = JSON.parse(payload) as CacheChange;
    } catch {
      return;
    }
    if (change.kind === "all") for (const ws of credentialOf.keys()) recheck(ws);
    if (change.kind === "user") for (const ws of socketsByKey.get(userRouteKey(change.userId)) ?? []) recheck(ws);
    if (change.kind === "token") for (const [ws, credential] of credentialOf) if (credential.tokenHash === change.tokenHash) recheck(ws);
  });

  const send = (keys: RouteKey[], event: { type: string; data: unknown }) => {
    // Each protocol words an event its own way; each wording is serialized once.
    const framed = new Map<AnyProtocol, string>();
    for (const key of keys)
      for (const socket of socketsByKey.get(key) ?? []) {
        if (socket.readyState !== socket.OPEN) continue;
        const protocol = protocolOf.get(socket)!;
        if (!framed.has(protocol)) framed.set(protocol, JSON.stringify(protocol.frame ? protocol.frame(event) : event));
        socket.send(framed.get(protocol)!);
      }
  };
  const deliver = async (payload: string) => {
    const id = Number(payload);
    if (!Number.isInteger(id)) return;
    const event = await loadRealtimeEvent(deps, id);
    if (!event) return;
    // Only this process's connected users are looked up, however large the audience.
    const connectedUsers = [...socketsByKey.keys()].filter((key) => key.startsWith("user:")).map((key) => key.slice("user:".length));
    const userIds = event.announcementId ? await recipientsAmong(deps, event.announcementId, connectedUsers) : event.userIds;
    send([...userIds.map(userRouteKey), ...event.observatoryIds.map(observatoryRouteKey)], { type: event.type, data: event.data });
  };
  // One at a time, in the order the notices came: an observatory must never see a cancel before the assign it cancels.
  let deliveries = Promise.resolve();
  const subscription = await deps.sql.listen(REALTIME_CHANNEL, (payload) => {
    deliveries = deliveries.then(() => deliver(payload)).catch((error) => deps.logger.error({ err: error }, "could not deliver realtime event"));
  });

  const open = (protocol: AnyProtocol, ws: WebSocket, admission: { session: unknown; routeKey: RouteKey; credential?: Credential }) => {
    protocolOf.set(ws, protocol);
    const sockets = socketsByKey.get(admission.routeKey) ?? new Set<WebSocket>();
    sockets.add(ws);
    socketsByKey.set(admission.routeKey, sockets);
    if (admission.credential) credentialOf.set(ws, admission.credential);
    let alive = true;
    ws.on("pong", () => (alive = true));
    const heartbeat = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
      // Expiry has no notice: the periodic re-check closes sockets whose session ran out.
      recheck(ws);
    }, HEARTBEAT_MS);
    const connection = {
      send: (message: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(message)),
      close: (code: number, reason: string) => ws.close(code, reason),
    };
    // One message at a time per socket, in the order sent, so replies keep the order of requests.
    let queue = Promise.resolve();
    ws.on("message", (raw) => {
      protocol.received?.(admission.session);
      queue = queue.then(() => handleMessage({ protocol, deps, session: admission.session, connection, raw: raw.toString() }));
    });
    // A client's protocol error (an oversized or broken frame) closes its socket; without a
    // listener the 'error' event would be thrown and take the whole process down.
    ws.on("error", (error) => deps.logger.debug({ err: error, routeKey: admission.routeKey }, "WebSocket client error"));
    ws.on("close", () => {
      clearInterval(heartbeat);
      credentialOf.delete(ws);
      protocolOf.delete(ws);
      // After the messages already received are handled, so a goodbye is recorded before the close.
      queue = queue
        .then(() => protocol.closed?.({ deps, session: admission.session }))
        .catch((error) => deps.logger.error({ err: error, routeKey: admission.routeKey }, "WebSocket close handler failed"));
      sockets.delete(ws);
      if (sockets.size === 0) socketsByKey.delete(admission.routeKey);
    });
    if (protocol.welcome) connection.send(protocol.welcome(admission.session));
    protocol.opened?.({ deps, session: admission.session, connection });
  };

  const onUpgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const protocol = protocolsByPath.get(url.pathname);
    if (!protocol) return refuse(socket, 404);
    const admission = await protocol.authenticate(request, deps);
    if ("status" in admission) return refuse(socket, admission.status);
    servers.get(protocol)!.handleUpgrade(request, socket, head, (ws) => open(protocol, ws, admission));
  };
  const upgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(request, socket, head).catch((error) => {
      deps.logger.error({ err: error }, "WebSocket upgrade failed");
      refuse(socket, 500);
    });
  };
  server.on("upgrade", upgradeListener);

  const clients = () => [...servers.values()].flatMap((wss) => [...wss.clients]);
  return {
    status: () => ({ running, connections: clients().length }),
    async close() {
      running = false;
      server.off("upgrade", upgradeListener);
      for (const client of clients()) client.close(1001, "server shutting down");
      await Promise.all([...servers.values()].map((wss) => new Promise<void>((resolve) => wss.close(() => resolve()))));
      await subscription.unlisten().catch(() => undefined);
      await credentialSubscription.unlisten().catch(() => undefined);
    },
  };
}
