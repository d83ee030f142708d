import { observationsCollection, observatoriesCollection, type Executor, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { isDeepStrictEqual } from "node:util";
import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { moveObservation, queueDispatch } from "../observations/transitions";
import { pluginIsCurrent, readServerSettings } from "../system/server-settings";
import { recordHistory } from "./observatories";

/**
 * What an observatory's plugin reports over `/ws/observatory`, applied to its document and
 * history. Each function runs in one transaction with the observatory's row locked, so reports
 * from two connections or processes apply one after the other.
 */
async function withObservatory<T>(deps: Deps, observatoryId: string, change: (tx: Executor, observatory: StoredDocument<ObservatoryDoc>) => Promise<T>) {
  return deps.db.transaction(async (tx) => {
    const observatory = await observatoriesCollection.get(tx, observatoryId, { forUpdate: true });
    if (!observatory) throw new AppError("NOT_FOUND", "The observatory no longer exists");
    return change(tx, observatory);
  });
}

const history = (tx: Executor, observatoryId: string, type: string, data: Record<string, unknown>) =>
  recordHistory(tx, { observatoryId, type, actorId: null, data });

/** Records system info and equipment, with a history entry only when a value differs from the last one reported. */
async function applyReport(tx: Executor, observatory: StoredDocument<ObservatoryDoc>, report: { systemInfo?: unknown; equipment?: unknown }) {
  const changes: Partial<ObservatoryDoc> = {};
  if (report.systemInfo !== undefined && !isDeepStrictEqual(report.systemInfo, observatory.doc.systemInfo)) {
    if (observatory.doc.systemInfo !== undefined)
      await history(tx, observatory.id, "system_info_changed", { before: observatory.doc.systemInfo, after: report.systemInfo });
    changes.systemInfo = report.systemInfo;
  }
  if (report.equipment !== undefined && !isDeepStrictEqual(report.equipment, observatory.doc.equipment)) {
    if (observatory.doc.equipment !== undefined)
      await history(tx, observatory.id, "equipment_configuration_changed", { before: observatory.doc.equipment, after: report.equipment });
    changes.equipment = report.equipment;
  }
  return changes;
}

/** `hello`: online with its plugin version; dispatch runs if the plugin is current. Returns the minimum version when it is not. */
export async function observatoryHello(options: {
  deps: Deps;
  observatoryId: string;
  connectionId: string;
  pluginVersion: string;
  systemInfo?: unknown;
  equipment?: unknown;
}) {
  const { deps, observatoryId } = options;
  return withObservatory(deps, observatoryId, async (tx, observatory) => {
    const changes = await applyReport(tx, observatory, options);
    if (!observatory.doc.connection.online) await history(tx, observatoryId, "online", { pluginVersion: options.pluginVersion });
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({
      ...doc,
      ...changes,
      connection: { online: true, pluginVersion: options.pluginVersion, lastSeenAt: deps.now().toISOString(), connectionId: options.connectionId },
    }));
    const settings = await readServerSettings(tx);
    const current = pluginIsCurrent(settings, options.pluginVersion);
    if (current) await queueDispatch(tx, observatoryId);
    return { minimumPluginVersion: current ? null : settings.minimumPluginVersion };
  });
}

/** `heartbeat`: still there. An observatory the sweep had taken for gone is online again. */
export async function observatoryHeartbeat(options: { deps: Deps; observatoryId: string }) {
  const { deps, observatoryId } = options;
  await withObservatory(deps, observatoryId, async (tx, observatory) => {
    if (!observatory.doc.connection.online) {
      await history(tx, observatoryId, "online", { pluginVersion: observatory.doc.connection.pluginVersion });
      await queueDispatch(tx, observatoryId);
    }
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({
      ...doc,
      connection: { ...doc.connection, online: true, lastSeenAt: deps.now().toISOString() },
    }));
  });
}

export async function observatoryConfig(options: { deps: Deps; observatoryId: string; systemInfo?: unknown; equipment?: unknown }) {
  const { deps, observatoryId } = options;
  await withObservatory(deps, observatoryId, async (tx, observatory) => {
    const changes = await applyReport(tx, observatory, options);
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({
      ...doc,
      ...changes,
      connection: { ...doc.connection, lastSeenAt: deps.now().toISOString() },
    }));
  });
}

const conditionsOf = (doc: ObservatoryDoc) => doc.conditions ?? { safe: true, safetyReason: null, weatherHold: false, weatherReason: null };

/** `safety`: while unsafe, no new assignments; a change is a `safety_event` in the history. */
export async function observatorySafety(options: { deps: Deps; observatoryId: string; safe: boolean; reason?: string }) {
  const { deps, observatoryId, safe } = options;
  await withObservatory(deps, observatoryId, async (tx, observatory) => {
    const before = conditionsOf(observatory.doc);
    if (before.safe === safe && before.safetyReason === (options.reason ?? null)) return;
    await history(tx, observatoryId, "safety_event", { safe, reason: options.reason ?? null });
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({ ...doc, conditions: { ...before, safe, safetyReason: options.reason ?? null } }));
    if (safe) await queueDispatch(tx, observatoryId);
  });
}

/** `weather`: a hold stops new assignments until it ends; on and off are both `weather_hold` entries. */
export async function observatoryWeather(options: { deps: Deps; observatoryId: string; hold: boolean; reason?: string }) {
  const { deps, observatoryId, hold } = options;
  await withObservatory(deps, observatoryId, async (tx, observatory) => {
    const before = conditionsOf(observatory.doc);
    if (before.weatherHold === hold && before.weatherReason === (options.reason ?? null)) return;
    await history(tx, observatoryId, "weather_hold", { hold, reason: options.reason ?? null });
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({
      ...doc,
      conditions: { ...before, weatherHold: hold, weatherReason: options.reason ?? null },
    }));
    if (!hold) await queueDispatch(tx, observatoryId);
  });
}

/**
 * The observatory went away: by `goodbye`, by its connection closing, or by missing heartbeats.
 * It is offline, and an observation assigned to it but not yet started waits again for dispatch.
 */
export async function observatoryGone(options: {
  deps: Deps;
  observatoryId: string;
  reason: "goodbye" | "connection_closed" | "heartbeat_missed";
  /** The connection going away; when a newer one has said hello since, nothing changes. */
  connectionId?: string;
}) {
  const { deps, observatoryId, reason } = options;
  await withObservatory(deps, observatoryId, async (tx, observatory) => {
    if (options.connectionId && observatory.doc.connection.connectionId !== options.connectionId) return;
    if (reason === "goodbye") await history(tx, observatoryId, "goodbye", {});
    if (!observatory.doc.connection.online) return;
    await history(tx, observatoryId, "offline", { reason });
    await observatoriesCollection.update(tx, observatoryId, (doc) => ({ ...doc, connection: { ...doc.connection, online: false } }));
    await returnAssigned(tx, deps, observatoryId, reason);
  });
}

async function returnAssigned(tx: Executor, deps: Deps, observatoryId: string, reason: string) {
  const assigned = await tx.execute<{ id: string }>(sql`
    select id from observations where observatory_id = ${observatoryId} and status = 'assigned' for update`);
  for (const { id } of assigned) {
    const observation = await observationsCollection.get(tx, id, { forUpdate: true });
    if (observation?.doc.status !== "assigned") continue;
    await moveObservation(tx, deps, {
      observation,
      to: "pending",
      actor: { kind: "system", id: "connection" },
      reason: `observatory offline (${reason.replace("_", " ")})`,
    });
  }
}

/** The sweep's part: observatories marked online whose last sign of life is older than the heartbeat timeout (their process may have died). */
export async function markSilentObservatoriesOffline(options: { deps: Deps }) {
  const { deps } = options;
  const settings = await readServerSettings(deps.db);
  const cutoff = new Date(deps.now().getTime() - settings.heartbeatTimeoutSeconds * 1000).toISOString();
  const silent = await deps.db.execute<{ id: string }>(sql`
    select id from observatories
     where (doc->'connection'->>'online')::boolean and (doc->'connection'->>'lastSeenAt')::timestamptz < ${cutoff}::timestamptz`);
  for (const { id } of silent) await observatoryGone({ deps, observatoryId: id, reason: "heartbeat_missed" });
  return silent.map((row) => row.id);
}

/** Every online observatory with a current plugin, for the minute's dispatch. */
export async function onlineObservatoryIds(deps: Deps): Promise<string[]> {
  const rows = await deps.db.execute<{ id: string }>(sql`select id from observatories where (doc->'connection'->>'online')::boolean`);
  return rows.map((row) => row.id);
}
