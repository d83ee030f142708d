import { hasCandidates, observationsCollection, observatoriesCollection, type ObservatoryDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses } from "@meridian/rules";
import { isDeepStrictEqual } from "node:util";
import { REPORT_DEPTH_LIMIT, REPORT_LIMIT_BYTES } from "@meridian/rules/observatory-protocol";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { pluginIsCurrent, readServerSettings } from "../system";
import { publishUserEvent } from "../../platform/events/publish";
import { observatoryViewerIds } from "../permissions";
import { observatoryCreatedAt, observatoryCreatedAtSql, observatoryUnavailableSince, reassignAfterMs } from "./availability";
import { observations } from "./observations-door";
import { recordHistory } from "./observatories";
import { endPresence, LAST_SEEN_WRITE_INTERVAL_MS, readPresence, recordSightings, type Sighting } from "./presence";
import { inTransaction, type InTransaction } from "../../platform/transaction";

/**
 * What an observatory's plugin reports over `/ws/observatory`, applied to its document and
 * history. Each function runs in one transaction with the observatory's row locked, so reports
 * from two connections or processes apply one after the other.
 */
async function withObservatory<T>(deps: Deps, observatoryId: string, change: (t: InTransaction, observatory: StoredDocument<ObservatoryDoc>) => Promise<T>) {
  return inTransaction(deps, async (t) => {
    const observatory = await observatoriesCollection.get(t.tx, observatoryId, { forUpdate: true });
    if (!observatory) throw new AppError("NOT_FOUND", "The observatory no longer exists");
    return change(t, observatory);
  });
}

const history = (t: Pick<InTransaction, "tx">, observatoryId: string, type: string, data: Record<string, unknown>) =>
  recordHistory({ t, observatoryId, type, actorId: null, data });

/** Online or offline, recorded, and told after commit to whoever may view the observatory: its pages show the connection live. */
async function connectionChanged(
  t: InTransaction,
  observatoryId: string,
  change: { online: true; pluginVersion: string | null } | { online: false; reason: GoneReason },
) {
  const { online, ...data } = change;
  await history(t, observatoryId, online ? "online" : "offline", data);
  await observations().queueNetworkPlan({ t });
  const viewers = await observatoryViewerIds({ db: t.tx, observatoryId });
  t.alongside(
    publishUserEvent({
      t,
      userIds: viewers,
      event: { type: "observatory.connection_changed", data: { id: observatoryId, online, at: t.now().toISOString() } },
    }),
  );
}

interface Reports {
  systemInfo?: unknown;
  equipment?: unknown;
}

/** A lone surrogate (paired ones are one code point under the `u` flag): jsonb refuses it. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * What in a report could not be stored, found without recursion (nothing a plugin sends can
 * overflow the stack here): nesting deeper than `REPORT_DEPTH_LIMIT`, which `JSON.stringify`
 * and the comparison with the stored report would recurse through, and, in a key or a text, the
 * NUL character (PostgreSQL's jsonb cannot hold it) or a lone surrogate (jsonb refuses it).
 */
function inspectReport(report: unknown): { tooDeep: boolean; unstorable?: string } {
  let unstorable: string | undefined;
  const check = (text: string) => {
    if (unstorable) return;
    if (text.includes("\u0000")) unstorable = "the NUL character (\\u0000)";
    else if (LONE_SURROGATE.test(text)) unstorable = "a lone surrogate (half of a UTF-16 pair)";
  };
  const waiting: Array<{ value: unknown; depth: number }> = [{ value: report, depth: 1 }];
  while (waiting.length > 0) {
    const { value, depth } = waiting.pop()!;
    if (typeof value === "string") check(value);
    if (typeof value !== "object" || value === null) continue;
    if (depth > REPORT_DEPTH_LIMIT) return { tooDeep: true };
    for (const [key, child] of Object.entries(value)) {
      check(key);
      waiting.push({ value: child, depth: depth + 1 });
    }
  }
  return { tooDeep: false, unstorable };
}

/**
 * Checks both reports before anything is written, and gives them back as they will be stored
 * (through JSON, as jsonb keeps them), so comparing with the stored ones sees only real changes.
 * Their nesting is checked first: only a report within the depth limit is turned into JSON.
 */
function checkReports(reports: Reports): Reports {
  const checked: Reports = {};
  for (const name of ["systemInfo", "equipment"] as const) {
    if (reports[name] === undefined) continue;
    const { tooDeep, unstorable } = inspectReport(reports[name]);
    if (tooDeep) throw new AppError("VALIDATION_FAILED", `${name} nests deeper than ${REPORT_DEPTH_LIMIT} levels. Nothing was stored.`);
    const json = JSON.stringify(reports[name]);
    const bytes = Buffer.byteLength(json);
    if (bytes > REPORT_LIMIT_BYTES)
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `${name} is ${bytes.toLocaleString("en")} bytes as JSON; at most ${REPORT_LIMIT_BYTES.toLocaleString("en")} (64 KiB) are stored. Nothing was stored.`,
      );
    if (unstorable) throw new AppError("VALIDATION_FAILED", `${name} holds ${unstorable}, which cannot be stored. Nothing was stored.`);
    checked[name] = JSON.parse(json) as unknown;
  }
  return checked;
}

/** Records system info and equipment, with a history entry only when a value differs from the last one reported. */
async function applyReport(t: Pick<InTransaction, "tx">, observatory: StoredDocument<ObservatoryDoc>, report: Reports) {
  const changes: Partial<ObservatoryDoc> = {};
  if (report.systemInfo !== undefined && !isDeepStrictEqual(report.systemInfo, observatory.doc.systemInfo)) {
    if (observatory.doc.systemInfo !== undefined)
      await history(t, observatory.id, "system_info_changed", { before: observatory.doc.systemInfo, after: report.systemInfo });
    changes.systemInfo = report.systemInfo;
  }
  if (report.equipment !== undefined && !isDeepStrictEqual(report.equipment, observatory.doc.equipment)) {
    if (observatory.doc.equipment !== undefined)
      await history(t, observatory.id, "equipment_configuration_changed", { before: observatory.doc.equipment, after: report.equipment });
    changes.equipment = report.equipment;
  }
  return changes;
}

/** How far back a hello looks for observations the failover took from the observatory, beyond its last absence. */
const WITHDRAWN_LOOKBACK_MS = 24 * 3_600_000;
/** A plugin runs one observation at a time: this many cover every absence it could have held one through. */
const WITHDRAWN_LIMIT = 100;

/**
 * The observations the failover took from the observatory (`observation_reassigned` in its history) during the absence
 * a hello ends, or in the last day (a cancel sent to a connection that died before it arrived), but not those it has
 * assigned or under way again since: its plugin is sent `cancel` for each, and ignores one it does not run. Each entry's
 * moment is the server's clock (`data.at`, written by the failover), as the absence's is.
 */
async function withdrawnFrom(t: InTransaction, observatory: StoredDocument<ObservatoryDoc>): Promise<string[]> {
  const { connection } = observatory.doc;
  const dayAgo = t.now().getTime() - WITHDRAWN_LOOKBACK_MS;
  const absentSince = connection.online ? dayAgo : (connection.lastSeenAt ? new Date(connection.lastSeenAt) : observatoryCreatedAt(observatory)).getTime();
  const from = new Date(Math.min(dayAgo, absentSince)).toISOString();
  const rows = await t.tx.execute<{ id: string }>(sql`
    select distinct h.doc->'data'->>'observationId' as id from observatory_history h
     where h.observatory_id = ${observatory.id} and h.doc->>'type' = 'observation_reassigned'
       and coalesce((h.doc->'data'->>'at')::timestamptz, h.created_at) > ${from}::timestamptz
       and not exists (select from observations o where o.id = h.doc->'data'->>'observationId'
                          and o.observatory_id = ${observatory.id} and o.status in ${[...activeStatuses]})
     limit ${WITHDRAWN_LIMIT}`);
  return rows.map((row) => row.id);
}

/**
 * Asks for the failover sweep at the moment the observatory will have been offline, unsafe or held for weather
 * `REASSIGN_AFTER_MINUTES`, after a change that leaves it so (the minute's run covers any moment this misses).
 */
async function queueReassignCheck(t: InTransaction, observatory: StoredDocument<ObservatoryDoc> | undefined) {
  if (!observatory) return;
  const away = await observatoryUnavailableSince({ db: t.tx, observatory });
  if (away) await observations().queueReassignCheck({ t, observatoryId: observatory.id, at: new Date(away.since.getTime() + reassignAfterMs(t.env)) });
}

/**
 * `hello`: online with its plugin version; dispatch runs if the plugin is current. Returns the
 * minimum version when it is not, and the observations the failover took from it while it was away
 * (`cancels`: its plugin is told `cancel` for each). The document is written only when something in it changes.
 */
export async function observatoryHello(options: {
  deps: Deps;
  observatoryId: string;
  /** The connection saying hello: one that a newer connection replaced changes nothing. */
  connectionId: string;
  pluginVersion: string;
  systemInfo?: unknown;
  equipment?: unknown;
}): Promise<{ replaced: boolean; minimumPluginVersion: string | null; cancels: string[] }> {
  const { deps, observatoryId, pluginVersion } = options;
  const reports = checkReports(options);
  return withObservatory(deps, observatoryId, async (t, observatory) => {
    // Its connection is being closed (its keys were revoked): it does not come online again.
    if (observatory.doc.removedAt) throw new AppError("NOT_FOUND", "The observatory was removed");
    // Replaced by a newer connection whose claim this process has not heard of yet (or which has ended since):
    // its hello must not bring the observatory online with nobody connected.
    if ((await readPresence({ db: t.tx, observatoryId }))?.connectionId !== options.connectionId)
      return { replaced: true, minimumPluginVersion: null, cancels: [] };
    const cancels = await withdrawnFrom(t, observatory);
    const changes = await applyReport(t, observatory, reports);
    const { online, pluginVersion: knownVersion } = observatory.doc.connection;
    if (!online) await connectionChanged(t, observatoryId, { online: true, pluginVersion });
    if (!online || knownVersion !== pluginVersion || Object.keys(changes).length > 0)
      await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
        ...doc,
        ...changes,
        connection: { online: true, pluginVersion, lastSeenAt: t.now().toISOString() },
      }));
    const settings = await readServerSettings(t.tx);
    const current = pluginIsCurrent({ settings, pluginVersion });
    if (current) await observations().queueDispatch({ t, observatoryId });
    return { replaced: false, minimumPluginVersion: current ? null : settings.minimumPluginVersion, cancels };
  });
}

/**
 * Live connections' signs of life, gathered by their process and written together in one
 * statement (each connection at most once a minute, `LAST_SEEN_WRITE_INTERVAL_MS`) to the
 * observatories' small connection rows, never to their documents. Says, by connection id,
 * whether each is still its observatory's live one. An observatory the sweep took for gone while
 * its connection was in fact there is online again.
 */
export async function observatoriesSeen(options: { deps: Deps; sightings: Sighting[] }): Promise<Map<string, "current" | "replaced">> {
  const { deps, sightings } = options;
  const recorded = await recordSightings({ db: deps.db, sightings });
  const standings = new Map<string, "current" | "replaced">();
  for (const { observatoryId, connectionId } of sightings) {
    const sighting = recorded.get(connectionId);
    standings.set(connectionId, sighting ? "current" : "replaced");
    if (!sighting || sighting.online) continue;
    await withObservatory(deps, observatoryId, async (t, observatory) => {
      if (observatory.doc.removedAt || observatory.doc.connection.online) return;
      if ((await readPresence({ db: t.tx, observatoryId }))?.connectionId !== connectionId) return;
      await connectionChanged(t, observatoryId, { online: true, pluginVersion: observatory.doc.connection.pluginVersion });
      await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, connection: { ...doc.connection, online: true } }));
      await observations().queueDispatch({ t, observatoryId });
    });
  }
  return standings;
}

/**
 * `config`: changed reports are stored and recorded; a report equal to the stored one writes
 * nothing. Changed equipment may change its filters, and with them what it may be sent: a dispatch is queued.
 */
export async function observatoryConfig(options: { deps: Deps; observatoryId: string; systemInfo?: unknown; equipment?: unknown }) {
  const { deps, observatoryId } = options;
  const reports = checkReports(options);
  await withObservatory(deps, observatoryId, async (t, observatory) => {
    const changes = await applyReport(t, observatory, reports);
    if (Object.keys(changes).length > 0) await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, ...changes }));
    if (changes.equipment !== undefined && observatory.doc.connection.online) await observations().queueDispatch({ t, observatoryId });
  });
}

const conditionsOf = (doc: ObservatoryDoc) => doc.conditions ?? { safe: true, safetyReason: null, weatherHold: false, weatherReason: null };

/**
 * `safety`: while unsafe, no new assignments; a change is a `safety_event` in the history, with its moment by the server's
 * clock (`at`), from which the failover counts (`observatoryUnavailableSince`).
 */
export async function observatorySafety(options: { deps: Deps; observatoryId: string; safe: boolean; reason?: string }) {
  const { deps, observatoryId, safe } = options;
  await withObservatory(deps, observatoryId, async (t, observatory) => {
    const before = conditionsOf(observatory.doc);
    if (before.safe === safe && before.safetyReason === (options.reason ?? null)) return;
    await history(t, observatoryId, "safety_event", { safe, reason: options.reason ?? null, at: t.now().toISOString() });
    const updated = await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
      ...doc,
      conditions: { ...before, safe, safetyReason: options.reason ?? null },
    }));
    if (safe) await observations().queueDispatch({ t, observatoryId });
    else await Promise.all([observations().queueNetworkPlan({ t }), queueReassignCheck(t, updated)]);
  });
}

/** `weather`: a hold stops new assignments until it ends; on and off are both `weather_hold` entries (with `at`, as `safety_event`). */
export async function observatoryWeather(options: { deps: Deps; observatoryId: string; hold: boolean; reason?: string }) {
  const { deps, observatoryId, hold } = options;
  await withObservatory(deps, observatoryId, async (t, observatory) => {
    const before = conditionsOf(observatory.doc);
    if (before.weatherHold === hold && before.weatherReason === (options.reason ?? null)) return;
    await history(t, observatoryId, "weather_hold", { hold, reason: options.reason ?? null, at: t.now().toISOString() });
    const updated = await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
      ...doc,
      conditions: { ...before, weatherHold: hold, weatherReason: options.reason ?? null },
    }));
    if (!hold) await observations().queueDispatch({ t, observatoryId });
    else await Promise.all([observations().queueNetworkPlan({ t }), queueReassignCheck(t, updated)]);
  });
}

export type GoneReason = "goodbye" | "connection_closed" | "heartbeat_missed" | "too_many_messages" | "server_shutdown";

/**
 * The observatory went away: by `goodbye`, by its connection closing (or being closed by a
 * stopping server, or for flooding it), or by missing heartbeats. It is offline, and an
 * observation assigned to it but not yet started waits again for dispatch; one that names other
 * candidates keeps its assignment until the failover moves it (`REASSIGN_AFTER_MINUTES` from
 * when it was last seen), so a plugin back within that time goes on with it.
 */
export async function observatoryGone(options: {
  deps: Deps;
  observatoryId: string;
  reason: GoneReason;
  /** The connection going away; when a newer one has replaced it since, or its own claim has already ended, nothing changes. */
  connectionId?: string;
  /** When the connection going away last heard from its plugin. */
  lastSeenAt?: Date;
  /** The sweep's cutoff: an observatory seen since (by a write the sweep did not see) is not gone. */
  silentBefore?: Date;
}) {
  const { deps, observatoryId, reason } = options;
  await withObservatory(deps, observatoryId, async (t, observatory) => {
    const presence = await readPresence({ db: t.tx, observatoryId });
    // A connection no longer named live (replaced, or its own claim already ended by its goodbye or close) changes nothing.
    if (options.connectionId && presence?.connectionId !== options.connectionId) return;
    const { lastSeenAt } = observatory.doc.connection;
    const seen = [presence?.lastSeenAt, options.lastSeenAt, lastSeenAt ? new Date(lastSeenAt) : undefined].filter((date): date is Date => Boolean(date));
    const lastSeen = seen.length > 0 ? new Date(Math.max(...seen.map((date) => date.getTime()))) : null;
    if (options.silentBefore && lastSeen && lastSeen >= options.silentBefore) return;
    if (reason === "goodbye") await history(t, observatoryId, "goodbye", {});
    // Its own connection ending (goodbye or close): the claim ends with it.
    const ending = presence !== undefined && presence.connectionId === options.connectionId;
    if (ending) await endPresence({ db: t.tx, observatoryId, connectionId: presence.connectionId });
    if (!observatory.doc.connection.online) {
      // Without the row, the document alone says when it was last seen (a connection that closed before its hello, say).
      if (ending && lastSeen && lastSeen.toISOString() !== lastSeenAt)
        await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({ ...doc, connection: { ...doc.connection, lastSeenAt: lastSeen.toISOString() } }));
      return;
    }
    await connectionChanged(t, observatoryId, { online: false, reason });
    const updated = await observatoriesCollection.update(t.tx, observatoryId, (doc) => ({
      ...doc,
      // Documents written before connections had their own row named the live one here.
      connection: { online: false, pluginVersion: doc.connection.pluginVersion, lastSeenAt: lastSeen?.toISOString() ?? null },
    }));
    await returnAssigned(t, observatoryId, reason);
    await queueReassignCheck(t, updated);
  });
}

async function returnAssigned(t: InTransaction, observatoryId: string, reason: string) {
  const assigned = await t.tx.execute<{ id: string }>(sql`
    select id from observations where observatory_id = ${observatoryId} and status = 'assigned' for update`);
  for (const { id } of assigned) {
    const observation = await observationsCollection.get(t.tx, id, { forUpdate: true });
    if (observation?.doc.status !== "assigned" || hasCandidates(observation.doc)) continue;
    await observations().moveObservation({
      t,
      observation,
      to: "pending",
      actor: { kind: "system", id: "connection" },
      reason: `observatory offline (${reason.replace("_", " ")})`,
    });
  }
}

/**
 * The sweep's part: observatories marked online whose last sign of life is older than the
 * heartbeat timeout plus the interval at which live connections write theirs (their process may
 * have died). A connection's own process closes it at the heartbeat timeout.
 */
export async function markSilentObservatoriesOffline(options: { deps: Deps }) {
  const { deps } = options;
  const settings = await readServerSettings(deps.db);
  const silentBefore = new Date(deps.now().getTime() - settings.heartbeatTimeoutSeconds * 1000 - LAST_SEEN_WRITE_INTERVAL_MS);
  const silent = await deps.db.execute<{ id: string }>(sql`
    select o.id from observatories o left join observatory_connections c on c.observatory_id = o.id
     where (o.doc->'connection'->>'online')::boolean
       and coalesce(c.last_seen_at, (o.doc->'connection'->>'lastSeenAt')::timestamptz, ${observatoryCreatedAtSql("o")})
           < ${silentBefore.toISOString()}::timestamptz`);
  for (const { id } of silent) await observatoryGone({ deps, observatoryId: id, reason: "heartbeat_missed", silentBefore });
  return silent.map((row) => row.id);
}
