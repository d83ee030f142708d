import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import { activeObservatoryAnnouncements } from "@meridian/domain/announcements";
import { hashSecret } from "@meridian/domain/auth";
import { reportObservationStatus, unstartedAssignments } from "@meridian/domain/observations";
import {
  authenticateObservatoryKey,
  claimObservatoryConnection,
  CONNECTION_CLAIMED_EVENT,
  LAST_SEEN_WRITE_INTERVAL_MS,
  observatoryConfig,
  observatoryGone,
  observatoryHello,
  observatorySafety,
  observatoryWeather,
  observatoryKeysStillValid,
  readPresence,
} from "@meridian/domain/observatories";
import { AppError, type Deps } from "@meridian/domain/platform";
import type { ObservatoryMessage } from "./observatory-message";
import { refuseWritesDuringMaintenance, pluginIsCurrent, readServerSettings } from "@meridian/domain/system";
import { sightingBatches } from "./sighting-batches";
import { ToldToPlugin } from "./told-to-plugin";
import { pluginToServerMessageSchema, type PluginToServerMessage } from "@meridian/rules/observatory-protocol";
import { nodeRequestHeaders, readCredential } from "../http/credentials";
import { defineProtocol, hubCloseCodes, observatoryRouteKey, type Admission, type ProtocolConnection, type Refusal } from "./protocol";

interface ObservatorySession {
  observatoryId: string;
  keyId: string;
  /** Names this connection in the observatory's connection row, so an older one closing later changes nothing. */
  connectionId: string;
  helloed: boolean;
  /**
   * `claiming` until this process has heard of the connection's own claim (events published
   * before it were meant for the connection it replaces), `live` after, `replaced` once a newer
   * connection with the key has claimed the observatory, or once its own claim was withdrawn
   * because it had closed meanwhile.
   */
  standing: "claiming" | "live" | "replaced";
  goneReason: "goodbye" | "connection_closed" | "heartbeat_missed";
  lastMessageAt: number;
  /** When its last sighting was written (at most one a minute, see `LAST_SEEN_WRITE_INTERVAL_MS`). */
  sightingWrittenAt: number;
  heartbeatTimeoutMs: number;
  watchdog?: NodeJS.Timeout;
  /** The version its hello gave. */
  pluginVersion?: string;
  /** Repeats `update_required` while the plugin stays below the minimum. */
  updateReminder?: NodeJS.Timeout;
  /** What it was told to run and the announcements it was given, asked after when events may have been missed. */
  told: ToldToPlugin;
}

/** The close codes of this protocol (the hub adds 1001, 1011, 4401 and 4429). */
const observatoryCloseCodes = { heartbeatMissed: 4408, replaced: 4409 } as const;

/** Observatory keys only, as a bearer header (so the cookie's same-origin rule never applies here). */
async function authenticateObservatory(request: IncomingMessage, deps: Deps): Promise<Admission<ObservatorySession> | Refusal> {
  const credential = readCredential(nodeRequestHeaders(request));
  const token = credential?.observatoryKey ? credential.token : undefined;
  // A lookup that failed (no database connection) is not an unknown key: the hub answers it 503 or 500, and the plugin
  // tries again, where a 401 would tell it its key is gone and to stop for good.
  const principal = token ? await authenticateObservatoryKey({ deps, token }) : undefined;
  if (!principal || !token) return { status: 401 };
  const settings = await readServerSettings(deps.db);
  return {
    session: {
      ...principal,
      connectionId: randomUUID(),
      helloed: false,
      standing: "claiming",
      goneReason: "connection_closed",
      lastMessageAt: Date.now(),
      sightingWrittenAt: deps.now().getTime(),
      heartbeatTimeoutMs: settings.heartbeatTimeoutSeconds * 1000,
      told: new ToldToPlugin(),
    },
    routeKey: observatoryRouteKey(principal.observatoryId),
    credential: { token, tokenHash: hashSecret(token) },
  };
}

type ObservatoryConnection = ProtocolConnection<ObservatoryMessage>;

function replace(session: ObservatorySession, connection: ObservatoryConnection) {
  session.standing = "replaced";
  connection.close(observatoryCloseCodes.replaced, "replaced by a newer connection of this observatory");
}

/**
 * Makes the connection its observatory's live one, unless it closed before its claim held: then
 * whatever is live stays so, and its own close, like a replaced connection's, changes nothing.
 */
async function claim(deps: Deps, session: ObservatorySession, connection: ObservatoryConnection): Promise<boolean> {
  const claimed = await claimObservatoryConnection({
    deps,
    observatoryId: session.observatoryId,
    connectionId: session.connectionId,
    stillConnected: () => connection.isOpen(),
  });
  if (!claimed) session.standing = "replaced";
  return claimed;
}

/**
 * What was assigned while no connection could hear it (see unstartedAssignments); a plugin ignores one it has. A plugin
 * below the minimum version gets none: it is told `update_required` and no assignments.
 */
async function sendUnstartedAssignments(deps: Deps, session: ObservatorySession, connection: ObservatoryConnection) {
  if (!pluginIsCurrent({ settings: await readServerSettings(deps.db), pluginVersion: session.pluginVersion })) return;
  for (const observation of await unstartedAssignments({ db: deps.db, observatoryId: session.observatoryId }))
    session.told.send(connection, { type: "assign", observation });
}

/** An event as the message a plugin gets. */
const messageOf = (event: { type: string; data: unknown }) => ({ type: event.type, ...(event.data as object) }) as ObservatoryMessage;

/** Every message but hello needs one first; after goodbye, another (so a second goodbye is refused too). */
function requireHello(session: ObservatorySession) {
  if (!session.helloed) throw new AppError("HELLO_REQUIRED", "Send hello with the plugin version first");
}

/**
 * Every message after hello: the plugin must have said hello, and at most once a minute the
 * connection's sighting joins the process's next batch (never the observatory's document). When
 * that batch finds the connection replaced (a claim whose notice this process missed), it is
 * closed (4409); until then messages are handled as a live connection's.
 */
function ready(deps: Deps, session: ObservatorySession, connection: ObservatoryConnection): boolean {
  requireHello(session);
  // Sightings are on the server's clock, as the sweep that reads them is (tests move it).
  const now = deps.now().getTime();
  if (now - session.sightingWrittenAt >= LAST_SEEN_WRITE_INTERVAL_MS) {
    session.sightingWrittenAt = now;
    sightingBatches(deps).add({
      observatoryId: session.observatoryId,
      connectionId: session.connectionId,
      at: new Date(now),
      settle: (standing) => {
        if (standing === "replaced") {
          if (session.standing !== "replaced") replace(session, connection);
        } else if (session.standing === "claiming") {
          // Still the live one a minute after its claim: had the claim's notice been lost, it is live all the same.
          session.standing = "live";
        }
      },
    });
  }
  return session.standing !== "replaced";
}

/**
 * `/ws/observatory`, the plugin's connection (docs/api-contract.md, Observatory connection). Each message
 * `{type, id, ...}` is answered `{type: "ack", id}` or `{type: "error", id, code, message}`; the
 * server sends `assign`, `cancel`, `update_required` and `motd`. Both directions are the shared
 * schemas of `@meridian/rules/observatory-protocol`: what a plugin sends is parsed with them, and
 * nothing but an `ObservatoryMessage` compiles as what the server sends. A connection silent for the
 * heartbeat timeout is closed (4408) and its observatory taken offline; one replaced by a newer
 * connection with the key, on any process, is closed with 4409 and changes nothing. Each
 * connection is rate-limited and its waiting messages bounded (`PLUGIN_MESSAGES_PER_SECOND`,
 * `PLUGIN_QUEUE_LIMIT`; the hub closes with 4429), and a stopping server closes it with 1001
 * after recording the observatory offline.
 */
export const observatoryProtocol = defineProtocol<ObservatorySession, PluginToServerMessage, ObservatoryMessage>({
  path: "/ws/observatory",
  // A report over its 64 KiB is refused with PAYLOAD_TOO_LARGE (the contract), up to a size no plugin needs; a
  // larger message is read (rate-limited) only for its id and refused the same way; past a mebibyte the socket closes.
  maxPayloadBytes: 1024 * 1024,
  handledBytes: 256 * 1024,
  authenticate: authenticateObservatory,
  messages: pluginToServerMessageSchema,
  limits: (env) => ({ messagesPerSecond: env.PLUGIN_MESSAGES_PER_SECOND, queueLimit: env.PLUGIN_QUEUE_LIMIT }),
  upgradeLimit: (env) => ({
    perMinute: env.OBSERVATORY_CONNECTIONS_PER_MINUTE,
    // Counted per observatory, whichever of its keys connects.
    refusal: (limit, seconds) => `At most ${limit} connections a minute are accepted for one observatory on this server; connect again in ${seconds} s`,
  }),
  handlers: {
    hello: async ({ deps, session, message, connection }) => {
      if (session.goneReason === "goodbye") {
        // Its goodbye ended its claim; a hello on the same socket makes it the live connection again, and its close counts again.
        session.goneReason = "connection_closed";
        if (!(await claim(deps, session, connection))) return;
      }
      const { replaced, minimumPluginVersion, cancels } = await observatoryHello({
        deps,
        observatoryId: session.observatoryId,
        connectionId: session.connectionId,
        pluginVersion: message.pluginVersion,
        systemInfo: message.systemInfo,
        equipment: message.equipment,
      });
      if (replaced) return replace(session, connection);
      // What the failover took from it while it was away, before `helloed`: an `assign` of one of them made meanwhile is
      // held back until then (`accepts`) and sent again after (`sendUnstartedAssignments`), so it follows its cancel.
      for (const observationId of cancels) session.told.send(connection, { type: "cancel", observationId });
      session.helloed = true;
      session.pluginVersion = message.pluginVersion;
      if (minimumPluginVersion) connection.send({ type: "update_required", minimumPluginVersion });
      for (const announcement of await activeObservatoryAnnouncements({ deps, observatoryId: session.observatoryId }))
        session.told.send(connection, { type: "motd", announcement });
      await sendUnstartedAssignments(deps, session, connection);
    },
    // The hot path: nothing but `ready`, which only queues a sighting, at most once a minute.
    heartbeat: async ({ deps, session, connection }) => {
      ready(deps, session, connection);
    },
    config: async ({ deps, session, message, connection }) => {
      if (!ready(deps, session, connection)) return;
      await observatoryConfig({ deps, observatoryId: session.observatoryId, systemInfo: message.systemInfo, equipment: message.equipment });
    },
    observation_status: async ({ deps, session, message, connection }) => {
      // A report written during a restore would be thrown away by its swap: the plugin resends it.
      await refuseWritesDuringMaintenance({ deps, retry: "send this report again once it ends", believeRecent: false });
      if (!ready(deps, session, connection)) return;
      const observation = await reportObservationStatus({
        deps,
        observatoryId: session.observatoryId,
        observationId: message.observationId,
        status: message.status,
        reason: message.reason,
      });
      return { status: observation.status };
    },
    safety: async ({ deps, session, message, connection }) => {
      if (!ready(deps, session, connection)) return;
      await observatorySafety({ deps, observatoryId: session.observatoryId, safe: message.safe, reason: message.reason });
    },
    weather: async ({ deps, session, message, connection }) => {
      if (!ready(deps, session, connection)) return;
      await observatoryWeather({ deps, observatoryId: session.observatoryId, hold: message.hold, reason: message.reason });
    },
    goodbye: async ({ deps, session }) => {
      // Not before hello, nor twice: the observatory's goodbye is recorded once per hello.
      requireHello(session);
      session.goneReason = "goodbye";
      sightingBatches(deps).forget(session.connectionId);
      await observatoryGone({
        deps,
        observatoryId: session.observatoryId,
        reason: "goodbye",
        connectionId: session.connectionId,
        lastSeenAt: new Date(session.lastMessageAt),
      });
      session.helloed = false;
    },
  },
  replies: {
    ack: (message) => ({ type: "ack", id: message.id }),
    error: (message, code, detail, retryAfter) => ({ type: "error", id: message?.id ?? null, code, message: detail, ...(retryAfter ? { retryAfter } : {}) }),
  },
  // Published only by `publishObservatoryEvent`, which takes and checks an `ObservatoryEvent` (the claim notice is held back by `accepts`).
  // A process's every plugin in one statement each heartbeat, not one query (and a write a minute) per connection.
  credentialsStillValid: ({ deps, credentials }) => observatoryKeysStillValid({ deps, keyHashes: credentials.map((credential) => credential.tokenHash) }),
  frame: messageOf,
  received: (session) => {
    session.lastMessageAt = Date.now();
  },
  opened: async ({ deps, session, connection }) => {
    session.watchdog = setInterval(
      () => {
        if (Date.now() - session.lastMessageAt <= session.heartbeatTimeoutMs) return;
        session.goneReason = "heartbeat_missed";
        connection.close(observatoryCloseCodes.heartbeatMissed, "heartbeat missed");
      },
      Math.min(5_000, session.heartbeatTimeoutMs / 3),
    );
    // Every 4 hours while it stays connected below the minimum (a raised minimum is told at once, as an event).
    session.updateReminder = setInterval(() => {
      void readServerSettings(deps.db)
        .then((settings) => {
          if (session.helloed && !pluginIsCurrent({ settings, pluginVersion: session.pluginVersion }))
            connection.send({ type: "update_required", minimumPluginVersion: settings.minimumPluginVersion! });
        })
        .catch((error: unknown) => deps.logger.warn({ err: error, observatoryId: session.observatoryId }, "could not check the plugin's version"));
    }, deps.env.PLUGIN_UPDATE_REMINDER_MS);
    // The newest connection with the key replaces any other, on whichever process it is.
    if (!(await claim(deps, session, connection))) return;
    session.sightingWrittenAt = deps.now().getTime();
  },
  // Kept open: a claim (its own or a newer connection's), an `assign`, a `cancel` and a `motd` may be among what was
  // missed, and the connection row says which connection is live.
  eventsMissed: async ({ deps, session, connection }) => {
    if (session.standing === "replaced") return;
    if ((await readPresence({ db: deps.db, observatoryId: session.observatoryId }))?.connectionId !== session.connectionId) return replace(session, connection);
    session.standing = "live";
    await session.told.sendMissed(deps, session.observatoryId, connection);
    if (session.helloed) await sendUnstartedAssignments(deps, session, connection);
  },
  accepts: ({ session, event, connection }) => {
    if (event.type === CONNECTION_CLAIMED_EVENT) {
      const claimant = (event.data as { connectionId: string }).connectionId;
      if (claimant === session.connectionId) {
        if (session.standing === "claiming") session.standing = "live";
      } else if (session.standing === "live") replace(session, connection);
      // A claiming connection's own claim comes later (claims are heard in commit order): it is the newer one.
      return false;
    }
    // Published before this connection's claim: meant for the one it replaces.
    if (session.standing !== "live") return false;
    // Dispatched between its claim and its hello, on the version of the plugin before it: its hello sends it if it is current.
    if (event.type === "assign" && !session.helloed) return false;
    session.told.sending(messageOf(event));
    return true;
  },
  closed: async ({ deps, session, code, shuttingDown }) => {
    clearInterval(session.watchdog);
    clearInterval(session.updateReminder);
    sightingBatches(deps).forget(session.connectionId);
    // After goodbye the observatory is already offline; a replaced connection leaves it to the newer one.
    if (session.goneReason === "goodbye" || session.standing === "replaced") return;
    const reason = shuttingDown ? "server_shutdown" : code === hubCloseCodes.tooManyWaiting ? "too_many_messages" : session.goneReason;
    await observatoryGone({
      deps,
      observatoryId: session.observatoryId,
      reason,
      connectionId: session.connectionId,
      lastSeenAt: new Date(session.lastMessageAt),
    });
  },
});
