import { tables, type Executor } from "@meridian/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { publishEvent } from "../../platform/events/publish";
import { inTransaction } from "../../platform/transaction";

/**
 * How often at most a live connection's last-seen time is written. Heartbeats in between cost
 * no database work; the minute's sweep allows for this much staleness on top of the heartbeat
 * timeout before it takes an observatory for gone.
 */
export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;

/**
 * Published when a connection becomes its observatory's live one. Every process's hub hears it in
 * commit order with the observatory's other events, so each `assign` goes to exactly one socket:
 * the live connection before the claim, or the new one after it.
 */
export const CONNECTION_CLAIMED_EVENT = "connection.claimed";

/** Thrown inside a claim's transaction to undo it: its connection closed before the claim could hold. */
class ClaimWithdrawn extends Error {}

/**
 * A new connection with the observatory's key replaces whichever was live: the row names it from
 * now on (an older connection closing later changes nothing), and the claim is announced so the
 * process holding the older one closes it (4409). Resolves false, changing nothing, when
 * `stillConnected` says the connection has closed by the time the claim holds the row's lock: a
 * connection's claim can reach the database after a newer connection's (its process busy, its pool
 * short), and the closed connection must not take the observatory from the newer one. A plugin
 * connects again only after its last connection closed, so that newer claim, if any, committed
 * after the close was seen, and the lock orders this check after it.
 */
export async function claimObservatoryConnection(options: {
  deps: Deps;
  observatoryId: string;
  connectionId: string;
  stillConnected?: () => boolean;
}): Promise<boolean> {
  const { deps, observatoryId, connectionId, stillConnected } = options;
  const lastSeenAt = deps.now();
  try {
    await inTransaction(deps, async (t) => {
      await t.tx
        .insert(tables.observatoryConnections)
        .values({ observatoryId, connectionId, lastSeenAt })
        .onConflictDoUpdate({ target: tables.observatoryConnections.observatoryId, set: { connectionId, lastSeenAt } });
      if (stillConnected && !stillConnected()) throw new ClaimWithdrawn();
      // A notice to the hubs, not a message to plugins: the protocol's `accepts` holds it back from every socket.
      await publishEvent({ t, observatoryIds: [observatoryId], event: { type: CONNECTION_CLAIMED_EVENT, data: { connectionId } } });
    });
    return true;
  } catch (error) {
    if (error instanceof ClaimWithdrawn) return false;
    throw error;
  }
}

export interface Sighting {
  observatoryId: string;
  connectionId: string;
  at: Date;
}

/**
 * Writes when each connection was last seen, in one statement whatever their number (so a
 * process gathers a period's sightings and writes them together). A connection that is no
 * longer its observatory's live one writes nothing and is missing from the answer, which is by
 * connection id; for the others it says whether the observatory reads online.
 */
export async function recordSightings(options: { db: Executor; sightings: Sighting[] }): Promise<Map<string, { observatoryId: string; online: boolean }>> {
  const { db, sightings } = options;
  if (sightings.length === 0) return new Map();
  const values = JSON.stringify(sightings.map((sighting) => ({ ...sighting, at: sighting.at.toISOString() })));
  const rows = await db.execute<{ observatory_id: string; connection_id: string; online: boolean | null }>(sql`
    update observatory_connections c set last_seen_at = greatest(c.last_seen_at, v.at)
      from jsonb_to_recordset(${values}::jsonb) as v("observatoryId" text, "connectionId" text, at timestamptz)
     where c.observatory_id = v."observatoryId" and c.connection_id = v."connectionId"
    returning c.observatory_id, c.connection_id,
              (select (o.doc->'connection'->>'online')::boolean from observatories o where o.id = c.observatory_id) as online`);
  return new Map(rows.map((row) => [row.connection_id, { observatoryId: row.observatory_id, online: Boolean(row.online) }]));
}

/**
 * A connection's own end (its goodbye or its close) ends its claim: the row goes, unless a newer
 * connection names itself there. A sighting of it still on its way then finds no live connection,
 * so it cannot bring the observatory back online after it was recorded offline.
 */
export async function endPresence(options: { db: Executor; observatoryId: string; connectionId: string }) {
  const { db, observatoryId, connectionId } = options;
  await db
    .delete(tables.observatoryConnections)
    .where(and(eq(tables.observatoryConnections.observatoryId, observatoryId), eq(tables.observatoryConnections.connectionId, connectionId)));
}

/** The live connection of an observatory and when it was last seen, if it ever connected. */
export async function readPresence(options: { db: Executor; observatoryId: string }) {
  const { db, observatoryId } = options;
  const [row] = await db.select().from(tables.observatoryConnections).where(eq(tables.observatoryConnections.observatoryId, observatoryId));
  return row;
}

/** When each of these observatories was last seen by a connection, for the read shape's `connection.lastSeenAt`. */
export async function lastSightings(options: { db: Executor; observatoryIds: string[] }): Promise<Map<string, Date>> {
  const { db, observatoryIds } = options;
  if (observatoryIds.length === 0) return new Map();
  const rows = await db
    .select({ observatoryId: tables.observatoryConnections.observatoryId, lastSeenAt: tables.observatoryConnections.lastSeenAt })
    .from(tables.observatoryConnections)
    .where(inArray(tables.observatoryConnections.observatoryId, observatoryIds));
  return new Map(rows.map((row) => [row.observatoryId, row.lastSeenAt]));
}
