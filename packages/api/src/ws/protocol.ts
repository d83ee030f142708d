import type { IncomingMessage } from "node:http";
import type { Env } from "@meridian/config";
import type { Deps } from "@meridian/domain/platform";
import type { z } from "zod";

/** Who a socket is, for routing: `user:<id>` or `observatory:<id>` (see `routeKey`). */
export type RouteKey = string;

export interface Admission<Session> {
  session: Session;
  routeKey: RouteKey;
  /** A credential the hub re-checks when credentials change (logout, revocation) and on each heartbeat. */
  credential?: Credential;
}

export interface Credential {
  token: string;
  tokenHash: string;
}

export interface Refusal {
  status: 401 | 403 | 404;
}

/** One open socket as its protocol sees it; `Outgoing` is what the protocol may send on it. */
export interface ProtocolConnection<Outgoing = unknown> {
  send(message: Outgoing): void;
  /** Closes the socket; none of its messages still waiting is handled. */
  close(code: number, reason: string): void;
  /** Whether the socket is still open: neither side has begun to close it. */
  isOpen(): boolean;
}

/**
 * The close codes the hub itself uses (protocols add their own, such as the observatory
 * connection's 4408 and 4409): 1001 the server is stopping (reconnect later), 1011 the
 * connection could not be set up, 1012 events meant for it may have been missed (its process's
 * LISTEN reconnected: connect again and read again), 4401 its credentials no longer work, 4413 it
 * left more than `WS_SEND_BUFFER_LIMIT_BYTES` unread, 4429 more of its messages were waiting than
 * its protocol allows.
 */
export const hubCloseCodes = {
  serverStopping: 1001,
  setupFailed: 1011,
  eventsMissed: 1012,
  credentialsInvalid: 4401,
  notReading: 4413,
  tooManyWaiting: 4429,
} as const;

/** How many of one socket's messages may wait, and how many a second it may send (a burst of as many); beyond the rate, `error` RATE_LIMITED. */
export interface ConnectionLimits {
  queueLimit: number;
  messagesPerSecond?: number;
}

type MessageOf<Union extends { type: string }, Type extends Union["type"]> = Extract<Union, { type: Type }>;

export interface HandlerContext<Session, Message, Outgoing = unknown> {
  deps: Deps;
  session: Session;
  message: Message;
  connection: ProtocolConnection<Outgoing>;
}

/**
 * One WebSocket endpoint: who may connect, the messages a client may send (a zod union keyed by
 * `type`), what each does (a call into the domain), and how this protocol words its replies.
 * The hub does the rest: upgrade, routing by path, parsing, size limits, heartbeats, delivery of
 * published events to the sockets of a route key, on every server process. `Outgoing`, when a
 * protocol names it, is the only thing it may send: replies, welcome, framed events and every
 * `connection.send` are checked against it (it is never inferred, so naming it is a decision).
 */
export interface ProtocolDefinition<Session, Union extends { type: string }, Outgoing = unknown> {
  path: string;
  /** The largest message read at all: a larger one closes its socket (1009, the WebSocket's "message too big"). */
  maxPayloadBytes: number;
  /**
   * The largest message handled, when smaller than `maxPayloadBytes`: a message between the two is
   * answered `error` PAYLOAD_TOO_LARGE in its turn, as the protocol's size rules say, and only its
   * `type` and `id` wait for that turn.
   */
  handledBytes?: number;
  authenticate(request: IncomingMessage, deps: Deps): Promise<Admission<Session> | Refusal>;
  messages: z.ZodType<Union>;
  handlers: {
    [Type in Union["type"]]: (context: HandlerContext<Session, MessageOf<Union, Type>, NoInfer<Outgoing>>) => Promise<unknown> | unknown;
  };
  replies: {
    /** The reply to a handled message; `result` is what its handler returned. */
    ack(message: Union, result: unknown): NoInfer<Outgoing>;
    /**
     * The reply to a message that could not be handled; `message` is what was readable of it.
     * `retryAfter` (whole seconds) comes with a refusal for now that knows when to try again, as
     * HTTP's Retry-After does.
     */
    error(message: { type?: unknown; id?: unknown } | undefined, code: string, detail: string, retryAfter?: number): NoInfer<Outgoing>;
  };
  /** Bounds on each socket (the hub's default: 100 waiting messages, no rate). */
  limits?(env: Env): ConnectionLimits;
  /**
   * The sockets one route key (a user) may hold open on this server process; none by default. The
   * upgrade beyond it is refused with HTTP 429 RATE_LIMITED and Retry-After, and the sockets already
   * open are kept: closing the oldest instead would let a runaway client push out the user's pages in use.
   */
  socketsPerRouteKey?(env: Env): number;
  /**
   * Upgrades one route key (an observatory) may make a minute on this server process, and the
   * refusal's words; no bound by default. Each costs the database a lookup and a claim, and each
   * close and hello an entry in the history, so a client reconnecting in a loop is refused with
   * HTTP 429 RATE_LIMITED and Retry-After.
   */
  upgradeLimit?(env: Env): { perMinute: number; refusal(perMinute: number, retryAfterSeconds: number): string };
  /** Sent once, right after the upgrade. */
  welcome?(session: Session): NoInfer<Outgoing>;
  /**
   * Runs for each socket once it is open, before any of its messages is handled (timers a
   * protocol keeps per connection, claims it makes); when it fails, the socket is closed (1011).
   */
  opened?(context: { deps: Deps; session: Session; connection: ProtocolConnection<NoInfer<Outgoing>> }): Promise<void> | void;
  /** Runs before each message is handled, whatever it is. */
  received?(session: Session): void;
  /**
   * Runs once per socket when it closes, however it closed, after the message being handled (if
   * any) is done: `code` is the one the server closed with, else the peer's; `shuttingDown` when
   * the server is stopping (then before its database pools close, without waiting for the peer).
   */
  closed?(context: { deps: Deps; session: Session; code: number; shuttingDown: boolean }): Promise<void> | void;
  /**
   * Runs for each open socket, in its turn among its messages, when this process's LISTEN connection
   * has reconnected: events published while it was down reached none of its sockets. By default the
   * hub closes the socket (1012), and a client that connects again reads what it shows again.
   */
  eventsMissed?(context: { deps: Deps; session: Session; connection: ProtocolConnection<NoInfer<Outgoing>> }): Promise<void> | void;
  /** Whether a published event for the socket's route key is delivered to it (all are by default). */
  accepts?(context: { session: Session; event: { type: string; data: unknown }; connection: ProtocolConnection<NoInfer<Outgoing>> }): boolean;
  /**
   * The hashes of those of its sockets' credentials that still work, asking the database: the hub re-checks
   * every socket's credential each heartbeat, a protocol's all at once. By default each as a user's session or key.
   */
  credentialsStillValid?(context: { deps: Deps; credentials: Credential[] }): Promise<Set<string>>;
  /** How a published event is worded for this protocol's sockets; `{type, data}` by default. */
  frame?(event: { type: string; data: unknown }): NoInfer<Outgoing>;
}

export function defineProtocol<Session, Union extends { type: string }, Outgoing = unknown>(
  definition: ProtocolDefinition<Session, Union, Outgoing>,
): ProtocolDefinition<Session, Union, Outgoing> {
  return definition;
}

export const userRouteKey = (userId: string): RouteKey => `user:${userId}`;
export const observatoryRouteKey = (observatoryId: string): RouteKey => `observatory:${observatoryId}`;
