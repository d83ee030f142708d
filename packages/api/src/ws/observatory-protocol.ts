import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import {
  activeObservatoryAnnouncements,
  AppError,
  authenticateObservatoryKey,
  hashSecret,
  observationStatuses,
  observatoryConfig,
  observatoryGone,
  observatoryHeartbeat,
  observatoryHello,
  observatorySafety,
  observatoryWeather,
  refuseWritesDuringMaintenance,
  readServerSettings,
  reportObservationStatus,
  type Deps,
} from "@meridian/domain";
import { z } from "zod";
import { defineProtocol, observatoryRouteKey, type Admission, type Refusal } from "./protocol";

interface ObservatorySession {
  observatoryId: string;
  keyId: string;
  /** Names this connection in the observatory's document, so an older one closing later changes nothing. */
  connectionId: string;
  helloed: boolean;
  goneReason: "goodbye" | "connection_closed" | "heartbeat_missed";
  lastMessageAt: number;
  heartbeatTimeoutMs: number;
  watchdog?: NodeJS.Timeout;
}

/** Observatory keys only, as a bearer header. */
async function authenticateObservatory(request: IncomingMessage, deps: Deps): Promise<Admission<ObservatorySession> | Refusal> {
  const token = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  const principal = token ? await authenticateObservatoryKey(deps, token).catch(() => undefined) : undefined;
  if (!principal || !token) return { status: 401 };
  const settings = await readServerSettings(deps.db);
  return {
    session: {
      ...principal,
      connectionId: randomUUID(),
      helloed: false,
      goneReason: "connection_closed",
      lastMessageAt: Date.now(),
      heartbeatTimeoutMs: settings.heartbeatTimeoutSeconds * 1000,
    },
    routeKey: observatoryRouteKey(principal.observatoryId),
    credential: { token, tokenHash: hashSecret(token), stillValid: async () => Boolean(await authenticateObservatoryKey(deps, token)) },
  };
}

const messageId = z.union([z.string().min(1).max(100), z.number().int()]);
const reason = z.string().trim().min(1).max(1000).optional();
const report = z.record(z.string(), z.unknown());
const observatoryMessages = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    id: messageId,
    pluginVersion: z.string().regex(/^\d+(\.\d+){0,3}$/),
    systemInfo: report.optional(),
    equipment: report.optional(),
  }),
  z.object({ type: z.literal("heartbeat"), id: messageId }),
  z.object({ type: z.literal("config"), id: messageId, systemInfo: report.optional(), equipment: report.optional() }),
  z.object({ type: z.literal("observation_status"), id: messageId, observationId: z.string().min(1).max(100), status: z.enum(observationStatuses), reason }),
  z.object({ type: z.literal("safety"), id: messageId, safe: z.boolean(), reason }),
  z.object({ type: z.literal("weather"), id: messageId, hold: z.boolean(), reason }),
  z.object({ type: z.literal("goodbye"), id: messageId }),
]);

const afterHello = (session: ObservatorySession) => {
  if (!session.helloed) throw new AppError("HELLO_REQUIRED", "Send hello with the plugin version first");
};

/**
 * `/ws/observatory`, the plugin's connection (contract: Observatory connection). Each message
 * `{type, id, ...}` is answered `{type: "ack", id}` or `{type: "error", id, code, message}`; the
 * server sends `assign`, `cancel`, `update_required` and `motd`. A connection silent for the
 * heartbeat timeout is closed (4408) and its observatory taken offline.
 */
export const observatoryProtocol = defineProtocol({
  path: "/ws/observatory",
  maxPayloadBytes: 256 * 1024,
  authenticate: authenticateObservatory,
  messages: observatoryMessages,
  handlers: {
    hello: async ({ deps, session, message, connection }) => {
      const { minimumPluginVersion } = await observatoryHello({
        deps,
        observatoryId: session.observatoryId,
        connectionId: session.connectionId,
        pluginVersion: message.pluginVersion,
        systemInfo: message.systemInfo,
        equipment: message.equipment,
      });
      session.helloed = true;
      if (minimumPluginVersion) connection.send({ type: "update_required", minimumPluginVersion });
      for (const announcement of await activeObservatoryAnnouncements(deps, session.observatoryId)) connection.send({ type: "motd", announcement });
    },
    heartbeat: async ({ deps, session }) => {
      afterHello(session);
      await observatoryHeartbeat({ deps, observatoryId: session.observatoryId });
    },
    config: async ({ deps, session, message }) => {
      afterHello(session);
      await observatoryConfig({ deps, observatoryId: session.observatoryId, systemInfo: message.systemInfo, equipment: message.equipment });
    },
    observation_status: async ({ deps, session, message }) => {
      // A report written during a restore would be thrown away by its swap: the plugin resends it.
      await refuseWritesDuringMaintenance(deps.db, "send this report again once it ends");
      afterHello(session);
      const observation = await reportObservationStatus({
        deps,
        observatoryId: session.observatoryId,
        observationId: message.observationId,
        status: message.status,
        reason: message.reason,
      });
      return { status: observation.status };
    },
    safety: async ({ deps, session, message }) => {
      afterHello(session);
      await observatorySafety({ deps, observatoryId: session.observatoryId, safe: message.safe, reason: message.reason });
    },
    weather: async ({ deps, session, message }) => {
      afterHello(session);
      await observatoryWeather({ deps, observatoryId: session.observatoryId, hold: message.hold, reason: message.reason });
    },
    goodbye: async ({ deps, session }) => {
      session.goneReason = "goodbye";
      await observatoryGone({ deps, observatoryId: session.observatoryId, reason: "goodbye", connectionId: session.connectionId });
      session.helloed = false;
    },
  },
  replies: {
    ack: (message) => ({ type: "ack", id: message.id }),
    error: (message, code, detail) => ({ type: "error", id: message?.id ?? null, code, message: detail }),
  },
  frame: (event) => ({ type: event.type, ...(event.data as object) }),
  received: (session) => {
    session.lastMessageAt = Date.now();
  },
  opened: ({ session, connection }) => {
    session.watchdog = setInterval(
      () => {
        if (Date.now() - session.lastMessageAt <= session.heartbeatTimeoutMs) return;
        session.goneReason = "heartbeat_missed";
        connection.close(4408, "heartbeat missed");
      },
      Math.min(5_000, session.heartbeatTimeoutMs / 3),
    );
  },
  closed: async ({ deps, session }) => {
    clearInterval(session.watchdog);
    // After goodbye the observatory is already offline.
    if (session.goneReason === "goodbye") return;
    await observatoryGone({ deps, observatoryId: session.observatoryId, reason: session.goneReason, connectionId: session.connectionId });
  },
});
