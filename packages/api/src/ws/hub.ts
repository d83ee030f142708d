import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { authenticateToken } from "@meridian/domain/auth";
import { markDispatch } from "@meridian/domain/observations";
import {
  AppError,
  CACHE_CHANNEL,
  loadRealtimeEvents,
  readRealtimeNotice,
  REALTIME_CHANNEL,
  recipientsAmong,
  type CacheChange,
  type Deps,
  type ErrorCode,
  type StoredRealtimeEvent,
} from "@meridian/domain/platform";
import { setImmediate as setImmediatePromise } from "node:timers/promises";
import pRetry from "p-retry";
import { WebSocketServer, type WebSocket } from "ws";
import { codeForStatus, DATABASE_RETRY_AFTER_SECONDS, problemAnswer, reportedAppError } from "../http/problem";
import { PerMinuteLimiter } from "../http/per-minute-limiter";
import { withinDeadline } from "../http/request-deadline";
import { handleMessage, messageHead, refuseMessage } from "./handle-message";
import { MessageQueue, TokenBucket } from "./message-queue";
import { hubCloseCodes, observatoryRouteKey, userRouteKey, type Credential, type ProtocolConnection, type ProtocolDefinition, type RouteKey } from "./protocol";

export interface WebSocketHub {
  status(): { running: boolean; connections: number };
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProtocol = ProtocolDefinition<any, any>;

const HEARTBEAT_MS = 30_000;
/**
 * The Retry-After of an upgrade refused for too many sockets: a socket closes as soon as its page
 * does, and one whose peer vanished without closing is found by the heartbeat.
 */
const SOCKET_CAP_RETRY_AFTER_SECONDS = HEARTBEAT_MS / 1000;
/** The observation an `assign` event carries, for the dispatch trace. */
const assignedObservationId = (data: unknown) => (data as { observation?: { id?: string } } | null)?.observation?.id;
/** Messages a socket may leave waiting when its protocol sets no limit. */
const DEFAULT_QUEUE_LIMIT = 100;
/** How long a stopping server waits for peers to answer its close before cutting them off. */
const CLOSE_GRACE_MS = 2_000;
/** The most realtime events read in one query when notices wait. */
const DELIVERY_BATCH = 500;
/** Events delivered in a row before the event loop gets a turn. */
const DELIVERIES_PER_TURN = 50;
/**
 * How often a failed read for an event's delivery (its stored body, an announcement's connected
 * recipients) is tried again before the event is given up for this process's sockets: about 3 s
 * in all, enough for a failover or a pool that was full, while later events wait behind it in order.
 */
const DELIVERY_RETRIES = { retries: 4, minTimeout: 100, factor: 3, maxTimeout: 2_000 } as const;

/** One open socket and what the hub keeps for it. */
interface Live {
  protocol: AnyProtocol;
  ws: WebSocket;
  session: unknown;
  routeKey: RouteKey;
  connection: ProtocolConnection;
  queue: MessageQueue;
  heartbeat?: NodeJS.Timeout;
  /** The code the server closed it with, if it did. */
  closedWith?: number;
  /** The code its close event carried. */
  peerCode?: number;
  /** Its close handling, once begun. */
  ended?: Promise<void>;
}

/** postgres.js calls a subscription's `onlisten` once it listens and again after every reconnect: `act` runs on the reconnects. */
function afterFirstCall(act: () => void): () => void {
  let called = false;
  return () => {
    if (called) act();
    called = true;
  };
}

/**
 * An upgrade refused as any HTTP request is (the same problem+json, `type` and `code` included),
 * then the connection closed: a client that asked to upgrade does not expect to reuse it.
 */
function refuse(socket: Duplex, error: AppError, path: string) {
  const { status, headers, body } = problemAnswer(error, { requestId: undefined, path });
  const fields = Object.entries(headers).filter(([name]) => name !== "connection");
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`, "Connection: close", ...fields.map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${head.join("\r\n")}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
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
  const upgradeLimiters = new Map(
    options.protocols.flatMap((protocol) => {
      const limit = protocol.upgradeLimit?.(deps.env);
      return limit ? [[protocol, new PerMinuteLimiter(limit.perMinute, { refusal: limit.refusal })] as const] : [];
    }),
  );
  const socketsByKey = new Map<RouteKey, Set<WebSocket>>();
  const credentialOf = new Map<WebSocket, Credential>();
  const lives = new Map<WebSocket, Live>();
  let running = true;

  /** A user's session or key, each asked of the database in turn, not of the cache. */
  const usersStillValid = async (credentials: Credential[]) => {
    const valid = new Set<string>();
    for (const credential of credentials) if (await authenticateToken({ deps, token: credential.token, fresh: true })) valid.add(credential.tokenHash);
    return valid;
  };
  /** Closes each of these sockets whose credential no longer works: a protocol's sockets in one check (`credentialsStillValid`). */
  const recheck = (sockets: Iterable<WebSocket>) => {
    const byProtocol = new Map<AnyProtocol, Array<{ ws: WebSocket; credential: Credential }>>();
    for (const ws of sockets) {
      const credential = credentialOf.get(ws);
      const live = lives.get(ws);
      if (!credential || !live) continue;
      const entries = byProtocol.get(live.protocol) ?? [];
      entries.push({ ws, credential });
      byProtocol.set(live.protocol, entries);
    }
    for (const [protocol, entries] of byProtocol) {
      const credentials = entries.map((entry) => entry.credential);
      (protocol.credentialsStillValid ? protocol.credentialsStillValid({ deps, credentials }) : usersStillValid(credentials))
        .then((valid) => {
          for (const { ws, credential } of entries)
            if (!valid.has(credential.tokenHash) && ws.readyState === ws.OPEN)
              (lives.get(ws)?.connection ?? ws).close(hubCloseCodes.credentialsInvalid, "credentials no longer valid");
        })
        .catch((error) => deps.logger.warn({ err: error, sockets: entries.length }, "could not re-check WebSocket credentials"));
    }
  };
  // Expiry has no notice, and a notice can be lost while LISTEN reconnects: every credential is checked again each heartbeat.
  const recheckTimer = setInterval(() => recheck([...credentialOf.keys()]), HEARTBEAT_MS);
  recheckTimer.unref();
  const credentialSubscription = await deps.sql.listen(CACHE_CHANNEL, (payload) => {
    let change: CacheChange;
    try {
      change = JSON.parse(payload) as CacheChange;
    } catch {
      return;
    }
    if (change.kind === "all") recheck([...credentialOf.keys()]);
    if (change.kind === "user") recheck(socketsByKey.get(userRouteKey(change.userId)) ?? []);
    if (change.kind === "token") recheck([...credentialOf].filter(([, credential]) => credential.tokenHash === change.tokenHash).map(([ws]) => ws));
  });

  /**
   * A client that does not read what it is sent would make the server hold it without end: past the
   * limit (what is still waiting in the socket's own buffers, written or not) it is closed instead.
   * The close frame waits behind what was sent, so a client that reads again learns why.
   */
  const sendLimit = deps.env.WS_SEND_BUFFER_LIMIT_BYTES;
  const sendOrClose = (live: Live, text: string) => {
    const { ws } = live;
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > sendLimit) return live.connection.close(hubCloseCodes.notReading, `more than ${sendLimit} bytes sent and not read`);
    ws.send(text);
  };

  const send = (keys: RouteKey[], event: { type: string; data: unknown }) => {
    // Each protocol words an event its own way; each wording is serialized once.
    const framed = new Map<AnyProtocol, string>();
    for (const key of keys)
      for (const socket of socketsByKey.get(key) ?? []) {
        const live = lives.get(socket);
        if (!live || socket.readyState !== socket.OPEN) continue;
        const { protocol } = live;
        if (protocol.accepts && !protocol.accepts({ session: live.session, event, connection: live.connection })) continue;
        if (!framed.has(protocol)) framed.set(protocol, JSON.stringify(protocol.frame ? protocol.frame(event) : event));
        sendOrClose(live, framed.get(protocol)!);
      }
  };
  /** A read for a delivery, tried again while the hub runs; its failures are logged, the last one thrown. */
  const readForDelivery = <T>(what: string, read: () => Promise<T>) =>
    pRetry(read, {
      ...DELIVERY_RETRIES,
      shouldRetry: () => running,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0) deps.logger.warn({ err: error, attempt: attemptNumber }, `could not read ${what}; trying again`);
      },
    });
  const deliver = async (id: number, event: StoredRealtimeEvent) => {
    // Only this process's connected users are looked up, however large the audience.
    const connectedUsers = () => [...socketsByKey.keys()].filter((key) => key.startsWith("user:")).map((key) => key.slice("user:".length));
    const userIds = event.everyUser
      ? connectedUsers()
      : event.announcementId
        ? await readForDelivery("an announcement's connected recipients", () =>
            recipientsAmong({ deps, announcementId: event.announcementId!, userIds: connectedUsers() }),
          )
        : event.userIds;
    send([...userIds.map(userRouteKey), ...event.observatoryIds.map(observatoryRouteKey)], { type: event.type, data: event.data });
    if (event.type === "assign") markDispatch({ stage: "assign sent", eventId: id, observationId: assignedObservationId(event.data) });
  };
  // One at a time, in the order the notices came: an observatory must never see a cancel before the assign it cancels.
  // Most notices carry their event; the rest are read together, every one waiting in one query: read one by one,
  // from a pool that requests keep busy, the events of a busy network came slower than they were published.
  const noticed: Array<{ id: number; event?: StoredRealtimeEvent }> = [];
  let deliveries: Promise<void> | undefined;
  const readUnread = async (notices: typeof noticed) => {
    const unread = notices.flatMap((notice) => (notice.event ? [] : [notice.id]));
    if (unread.length === 0) return new Map<number, StoredRealtimeEvent>();
    return readForDelivery("realtime events", () => loadRealtimeEvents({ deps, eventIds: unread })).catch((error: unknown) => {
      deps.logger.error({ err: error, events: unread.length }, "could not read realtime events");
      return new Map<number, StoredRealtimeEvent>();
    });
  };
  const deliverNoticed = async () => {
    while (noticed.length > 0) {
      const notices = noticed.splice(0, DELIVERY_BATCH);
      const read = await readUnread(notices);
      for (const [index, notice] of notices.entries()) {
        // A long burst gives the event loop a turn now and then: sockets flush what was sent and
        // requests are answered, rather than a reading client's buffer filling (and passing the send
        // limit) only because the hub never let its writes go out.
        if (index > 0 && index % DELIVERIES_PER_TURN === 0) await setImmediatePromise();
        const event = notice.event ?? read.get(notice.id);
        if (event) await deliver(notice.id, event).catch((error: unknown) => deps.logger.error({ err: error }, "could not deliver a realtime event"));
      }
    }
    deliveries = undefined;
  };
  /**
   * After the LISTEN connection came back, each socket catches up in its turn among its messages:
   * its protocol's `eventsMissed`, else a close (1012) that makes its client connect again and read again.
   */
  const catchUp = (live: Live) => {
    const { protocol, connection, session } = live;
    const missed = () => connection.close(hubCloseCodes.eventsMissed, "events may have been missed: connect again");
    if (!protocol.eventsMissed) return missed();
    if (!live.queue.push(async () => protocol.eventsMissed!({ deps, session, connection }))) missed();
  };
  const subscription = await deps.sql.listen(
    REALTIME_CHANNEL,
    (payload) => {
      const notice = readRealtimeNotice(payload);
      if (!notice) return;
      markDispatch({ stage: "event heard", eventId: notice.id });
      noticed.push(notice);
      deliveries ??= deliverNoticed();
    },
    afterFirstCall(() => {
      deps.logger.warn({ sockets: lives.size }, "the realtime LISTEN connection came back: its sockets catch up on what they missed");
      for (const live of lives.values()) catchUp(live);
    }),
  );

  /**
   * Everything after a socket closes, once however it closed: it leaves its route key, none of
   * its waiting messages is handled, and its protocol's `closed` runs after the message being
   * handled. A socket counts as a connection until that is done.
   */
  const end = (live: Live, shuttingDown: boolean) =>
    (live.ended ??= (async () => {
      clearInterval(live.heartbeat);
      credentialOf.delete(live.ws);
      const sockets = socketsByKey.get(live.routeKey);
      sockets?.delete(live.ws);
      if (sockets?.size === 0) socketsByKey.delete(live.routeKey);
      await live.queue.stop();
      const code = shuttingDown ? hubCloseCodes.serverStopping : (live.closedWith ?? live.peerCode ?? 1005);
      await Promise.resolve(live.protocol.closed?.({ deps, session: live.session, code, shuttingDown })).catch((error: unknown) =>
        deps.logger.error({ err: error, routeKey: live.routeKey }, "WebSocket close handler failed"),
      );
      lives.delete(live.ws);
    })());

  const open = (protocol: AnyProtocol, ws: WebSocket, admission: { session: unknown; routeKey: RouteKey; credential?: Credential }) => {
    const limits = protocol.limits?.(deps.env) ?? { queueLimit: DEFAULT_QUEUE_LIMIT };
    const bucket = limits.messagesPerSecond ? new TokenBucket(limits.messagesPerSecond) : undefined;
    const queue = new MessageQueue(limits.queueLimit, (error) => deps.logger.error({ err: error, routeKey: admission.routeKey }, "WebSocket task failed"));
    const connection: ProtocolConnection = {
      send: (message: unknown) => sendOrClose(live, JSON.stringify(message)),
      close: (code: number, reason: string) => {
        live.closedWith ??= code;
        void queue.stop();
        ws.close(code, reason);
      },
      isOpen: () => ws.readyState === ws.OPEN,
    };
    const live: Live = { protocol, ws, session: admission.session, routeKey: admission.routeKey, connection, queue };
    lives.set(ws, live);
    const sockets = socketsByKey.get(admission.routeKey) ?? new Set<WebSocket>();
    sockets.add(ws);
    socketsByKey.set(admission.routeKey, sockets);
    if (admission.credential) credentialOf.set(ws, admission.credential);
    let alive = true;
    ws.on("pong", () => (alive = true));
    live.heartbeat = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, HEARTBEAT_MS);
    const rateLimited = `At most ${limits.messagesPerSecond} messages a second are handled on this connection; this one was not: send it again later`;
    const tooLarge = `Messages on this connection are handled up to ${protocol.handledBytes} bytes; this one was not`;
    // A refusal keeps only the message's type and id while it waits for its turn.
    const refusal = (text: string, code: ErrorCode, detail: string, retryAfter?: number) => {
      const head = messageHead(text);
      return async () => refuseMessage({ protocol, connection, head, code, detail, retryAfter });
    };
    ws.on("message", (raw) => {
      if (queue.isStopped) return;
      protocol.received?.(admission.session);
      const text = raw.toString();
      const bytes = Buffer.isBuffer(raw) ? raw.length : Buffer.byteLength(text);
      const task =
        bucket && !bucket.take()
          ? // The bucket refills every second: the next message a second later is handled.
            refusal(text, "RATE_LIMITED", rateLimited, 1)
          : protocol.handledBytes !== undefined && bytes > protocol.handledBytes
            ? refusal(text, "PAYLOAD_TOO_LARGE", tooLarge)
            : () => handleMessage({ protocol, deps, session: admission.session, connection, raw: text });
      if (!queue.push(task)) connection.close(hubCloseCodes.tooManyWaiting, `more than ${limits.queueLimit} messages waiting`);
    });
    // A client's protocol error (an oversized or broken frame) closes its socket; without a
    // listener the 'error' event would be thrown and take the whole process down.
    ws.on("error", (error) => deps.logger.debug({ err: error, routeKey: admission.routeKey }, "WebSocket client error"));
    ws.on("close", (code) => {
      live.peerCode = code;
      void end(live, false);
    });
    if (protocol.welcome) connection.send(protocol.welcome(admission.session));
    if (protocol.opened)
      queue.push(async () => {
        try {
          await protocol.opened!({ deps, session: admission.session, connection });
        } catch (error) {
          deps.logger.error({ err: error, routeKey: admission.routeKey }, "WebSocket connection could not be set up");
          connection.close(hubCloseCodes.setupFailed, "the connection could not be set up");
        }
      });
  };

  /**
   * The upgrade's credentials checked, or a 503 once the database's connect timeout (and a second) has passed without
   * an answer: postgres.js can leave a query unsettled while PostgreSQL refuses it connections, and an upgrade left
   * hanging would keep a plugin from ever trying again.
   */
  const authenticatedInTime = (protocol: AnyProtocol, request: IncomingMessage) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AppError("SERVICE_UNAVAILABLE", "The database did not answer in time to check the credentials; try again shortly", {
              retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
            }),
          ),
        (deps.env.DATABASE_CONNECT_TIMEOUT_SECONDS + 1) * 1000,
      );
    });
    return Promise.race([protocol.authenticate(request, deps), late]).finally(() => clearTimeout(timer));
  };

  const onUpgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const protocol = protocolsByPath.get(url.pathname);
    if (!protocol) return refuse(socket, new AppError("NOT_FOUND", "No WebSocket is served at this path"), url.pathname);
    const admission = await authenticatedInTime(protocol, request);
    if ("status" in admission) return refuse(socket, new AppError(codeForStatus[admission.status]!), url.pathname);
    // Thrown as RATE_LIMITED with Retry-After, answered below like any refusal of the upgrade.
    upgradeLimiters.get(protocol)?.take({ key: admission.routeKey, cost: 1, now: deps.now().getTime() });
    // Counted here and joined in `open` in the same turn: without verifyClient, ws completes the
    // upgrade synchronously, so upgrades arriving together cannot all pass the count.
    const cap = protocol.socketsPerRouteKey?.(deps.env);
    if (cap !== undefined && (socketsByKey.get(admission.routeKey)?.size ?? 0) >= cap)
      return refuse(
        socket,
        new AppError("RATE_LIMITED", `At most ${cap} connections at once on this server; close one (another tab or window) or try again later`, {
          retryAfterSeconds: SOCKET_CAP_RETRY_AFTER_SECONDS,
        }),
        url.pathname,
      );
    servers.get(protocol)!.handleUpgrade(request, socket, head, (ws) => {
      // Authenticated while the hub was closing: told at once, like the sockets it closed.
      if (!running) return ws.close(hubCloseCodes.serverStopping, "server shutting down");
      open(protocol, ws, admission);
    });
  };
  const upgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    onUpgrade(request, socket, head).catch((error: unknown) => {
      // A database without a free connection is a 503 with Retry-After here as on any route.
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
      refuse(socket, reportedAppError(error, deps.logger, { requestId: undefined, method: "GET", path }), path);
    });
  };
  server.on("upgrade", upgradeListener);

  const clients = () => [...servers.values()].flatMap((wss) => [...wss.clients]);
  return {
    status: () => ({ running, connections: lives.size }),
    async close() {
      running = false;
      clearInterval(recheckTimer);
      server.off("upgrade", upgradeListener);
      // What waits on the database (close handlers, deliveries, unlistening) gets the database's connect
      // timeout and a second, as an upgrade's check does, then its queries are given up and the hub stops
      // without it (withinDeadline): postgres.js can leave a query unsettled while PostgreSQL refuses it
      // connections, and a stop must not wait for good.
      const limitMs = (deps.env.DATABASE_CONNECT_TIMEOUT_SECONDS + 1) * 1000;
      const withinLimit = async (what: string, work: () => Promise<unknown>) => {
        if ((await withinDeadline(limitMs, work)) === "expired")
          deps.logger.error({ what, limitMs }, "the stopping WebSocket hub did not finish this in time and goes on without it");
      };
      // Each socket is told (1001) and its close handled now, while the database is there, without
      // waiting for the peer's answer: a plugin on a stalled link must not hold the shutdown.
      await withinLimit("close handlers", () =>
        Promise.all(
          [...lives.values()].map((live) => {
            live.ws.close(hubCloseCodes.serverStopping, "server shutting down");
            return end(live, true);
          }),
        ),
      );
      // The closing handshakes get a moment; a peer that has not answered by then is cut off.
      const handshakes = Promise.all([...servers.values()].map((wss) => new Promise<void>((resolve) => wss.close(() => resolve()))));
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([handshakes, new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(grace);
      for (const client of clients()) client.terminate();
      await handshakes;
      await withinLimit("event deliveries and unlistening", () =>
        Promise.all([deliveries, subscription.unlisten().catch(() => undefined), credentialSubscription.unlisten().catch(() => undefined)]),
      );
    },
  };
}
