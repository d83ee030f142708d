import type { Executor, ObservatoryDoc, StoredDocument } from "@meridian/db";
import { sql } from "drizzle-orm";

/** When the observatory was created by the server's clock (its document's `createdAt`; the row's, written before it had one). */
export const observatoryCreatedAt = (observatory: StoredDocument<ObservatoryDoc>) =>
  observatory.doc.createdAt ? new Date(observatory.doc.createdAt) : observatory.createdAt;
/** `observatoryCreatedAt` in SQL, of the observatory row `alias`. */
export const observatoryCreatedAtSql = (alias: string) => sql`coalesce((${sql.raw(alias)}.doc->>'createdAt')::timestamptz, ${sql.raw(alias)}.created_at)`;

/** What keeps an observatory from taking work (contract, "Network scheduling": offline, unsafe or under a weather hold). */
export type Unavailability = "offline" | "unsafe" | "weather_hold";

/** What the observatory's document says keeps it from taking work now. */
function unavailabilitiesOf(doc: ObservatoryDoc): Unavailability[] {
  const kinds: Unavailability[] = [];
  if (!doc.connection.online) kinds.push("offline");
  if (doc.conditions?.safe === false) kinds.push("unsafe");
  if (doc.conditions?.weatherHold) kinds.push("weather_hold");
  return kinds;
}

/**
 * When the current stretch of one condition began, by the server's clock: the moment (`data.at`) of the first history
 * entry of its type after the last one that ended a stretch (`safe: true`, `hold: false`); entries repeat while it lasts
 * when only the reason changes. The entries are ordered by their rows' `created_at`, the database's clock, which only
 * orders them: it is never compared with the server's. An entry written before entries had `at` stands by its
 * `created_at`. None left (pruned by `OBSERVATORY_HISTORY_KEEP`): it began before every entry kept, so the observatory's
 * creation stands for it.
 */
async function stretchStart(db: Executor, observatory: StoredDocument<ObservatoryDoc>, type: "safety_event" | "weather_hold"): Promise<Date> {
  const [flag, ended] = type === "safety_event" ? ["safe", "true"] : ["hold", "false"];
  const [row] = await db.execute<{ since: string }>(sql`
    select coalesce(h.doc->'data'->>'at', h.created_at::text) as since from observatory_history h
     where h.observatory_id = ${observatory.id} and h.doc->>'type' = ${type}
       and h.created_at > coalesce((
         select max(e.created_at) from observatory_history e
          where e.observatory_id = ${observatory.id} and e.doc->>'type' = ${type} and e.doc->'data'->>${flag} = ${ended}), '-infinity'::timestamptz)
     order by h.created_at, h.id limit 1`);
  return row ? new Date(row.since) : observatoryCreatedAt(observatory);
}

/**
 * Since when the observatory has been offline, unsafe or under a weather hold without a break, and which of them hold
 * now; null while none does. Offline counts from when it was last seen (`connection.lastSeenAt`, written when it went
 * offline), or from its creation when it never connected; unsafe and a weather hold from the history entry that began
 * each (`safety_event`, `weather_hold`). Conditions stay as last reported while it is offline, so all that hold now have
 * held together since the latest of their starts at least: the stretch began at the earliest.
 */
export async function observatoryUnavailableSince(options: {
  db: Executor;
  observatory: StoredDocument<ObservatoryDoc>;
}): Promise<{ since: Date; kinds: Unavailability[] } | null> {
  const { db, observatory } = options;
  const kinds = unavailabilitiesOf(observatory.doc);
  if (kinds.length === 0) return null;
  const starts = await Promise.all(
    kinds.map(async (kind) => {
      if (kind !== "offline") return stretchStart(db, observatory, kind === "unsafe" ? "safety_event" : "weather_hold");
      const { lastSeenAt } = observatory.doc.connection;
      return lastSeenAt ? new Date(lastSeenAt) : observatoryCreatedAt(observatory);
    }),
  );
  return { since: new Date(Math.min(...starts.map((start) => start.getTime()))), kinds };
}

/** How long an observation may wait, assigned and unstarted, at an unavailable observatory before it waits for any of its candidates. */
export const reassignAfterMs = (env: { REASSIGN_AFTER_MINUTES: number }) => env.REASSIGN_AFTER_MINUTES * 60_000;
