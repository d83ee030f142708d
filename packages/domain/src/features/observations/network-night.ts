import type { Executor, ObservationDoc, StoredDocument } from "@meridian/db";
import { currentNightDate, shiftDate, type PlanInputs, type QueueBlock } from "@meridian/scheduler";
import { sql } from "drizzle-orm";
import { waitingAt } from "./waiting-at";

const DAY_MS = 86_400_000;

interface PlanRun {
  observationId: string;
  observatoryId: string;
  start: Date;
  end: Date;
}

/** What the night plan of one observatory reads of the network plan in force. */
export interface NetworkPlanPart {
  computedAt: Date;
  horizonEnd: Date;
  /** The plan knows the observatory (one made before it was created does not). */
  seen: boolean;
  /** The plan holds the observatory away (offline or unsafe past `REASSIGN_AFTER_MINUTES`): it plans nothing there. */
  away: boolean;
  /** Every run, wherever it is, of the observations waiting at the observatory, by start. */
  runs: PlanRun[];
  /** The plan's reason at the observatory for each of those it leaves out. */
  reasons: Map<string, QueueBlock>;
}

interface StoredReason {
  observationId: string;
  /** The observatory the reason holds at (here), not PLANNED_ELSEWHERE's: the block leaves it out. */
  observatoryId: string;
  code: QueueBlock["code"];
  until: string | null;
  limit?: QueueBlock["limit"];
  at?: string;
  highestAltitude?: number;
  windowInDaylight?: true;
}

/** The plan's reasons that say it plans nothing at the observatory (a plan made before it recorded `unavailable`). */
const AWAY_CODES: ReadonlySet<string> = new Set(["OFFLINE", "UNSAFE"]);

const blockOf = ({ observationId: _observationId, observatoryId: _observatoryId, until, at, ...reason }: StoredReason): QueueBlock => ({
  ...reason,
  until: until === null ? null : new Date(until),
  ...(at ? { at: new Date(at) } : {}),
});

/**
 * The part of the network plan in force that concerns the observatory's waiting observations (`waitingAt`): their runs
 * anywhere and its reasons there. Picked out by the database from the plan's document, read once: a plan holds thousands
 * of slots, of which one observatory's night needs a few. Null before the first plan.
 */
export async function networkPlanPart(options: { db: Executor; observatoryId: string }): Promise<NetworkPlanPart | null> {
  const { db, observatoryId } = options;
  const waiting = sql`(select waiting.id from observations waiting where ${waitingAt({ alias: "waiting", observatoryId })})`;
  const rows = await db.execute<{ kind: "plan" | "run" | "reason"; value: Record<string, unknown> }>(sql`
    with plan as materialized (
      select doc->'slots' as slots, doc->'unscheduled' as unscheduled,
             jsonb_build_object('computedAt', doc->'computedAt', 'horizonEnd', doc->'horizonEnd', 'here', (
               select here from jsonb_array_elements(doc->'observatories') here where here->>'observatoryId' = ${observatoryId})) as times
        from network_plans where id = 'current')
    select 'plan' as kind, times as value from plan
    union all
    select 'run', slot from plan, jsonb_array_elements(plan.slots) slot where slot->>'observationId' in ${waiting}
    union all
    select 'reason', reason || jsonb_build_object('observationId', item->'observationId')
      from plan, jsonb_array_elements(plan.unscheduled) item, jsonb_array_elements(item->'reasons') reason
     where reason->>'observatoryId' = ${observatoryId} and item->>'observationId' in ${waiting}`);
  const times = rows.find((row) => row.kind === "plan")?.value as
    { computedAt: string; horizonEnd: string; here: { unavailable?: string | null } | null } | undefined;
  if (!times) return null;
  const runs = rows
    .filter((row) => row.kind === "run")
    .map(({ value }) => {
      const run = value as { observationId: string; observatoryId: string; start: string; end: string };
      return { observationId: run.observationId, observatoryId: run.observatoryId, start: new Date(run.start), end: new Date(run.end) };
    });
  const reasons = rows.filter((row) => row.kind === "reason").map(({ value }) => value as unknown as StoredReason);
  const reasonsHere = new Map(reasons.map((reason) => [reason.observationId, blockOf(reason)]));
  return {
    computedAt: new Date(times.computedAt),
    seen: times.here !== null,
    away: Boolean(times.here?.unavailable) || [...reasonsHere.values()].some((reason) => AWAY_CODES.has(reason.code)),
    horizonEnd: new Date(times.horizonEnd),
    runs: runs.sort((a, b) => a.start.getTime() - b.start.getTime()),
    reasons: reasonsHere,
  };
}

type Site = Pick<PlanInputs<never>, "location" | "timeZone">;

/** The night a moment belongs to, as the night plan dates them: the one in progress then, or the next. */
export const nightDateAt = ({ site, at }: { site: Site; at: Date }) => currentNightDate({ ...site, now: at });

/** The first moment (to the second) that belongs to a night after `date`: dates only grow with time, so it is searched for. */
function firstMomentAfter(site: Site, date: string): number {
  let before = Date.parse(`${date}T00:00:00Z`) - 2 * DAY_MS;
  let after = before + 5 * DAY_MS;
  while (after - before > 1000) {
    const middle = Math.floor((before + after) / 2);
    if (nightDateAt({ site, at: new Date(middle) }) > date) after = middle;
    else before = middle;
  }
  return after;
}

/** The moments [from, to) that belong to the night of `date` (for the current night: from long before now). */
export const nightSpan = ({ site, date }: { site: Site; date: string }) => ({
  from: firstMomentAfter(site, shiftDate({ date, days: -1 })),
  to: firstMomentAfter(site, date),
});

type Stored = StoredDocument<ObservationDoc>;

/**
 * One night at the observatory as the network plan has it: its runs there that start in the night (not over at `now`),
 * after what is assigned or running there (the current night), and each other waiting observation with why it is not in
 * the night: the plan's reason at the observatory, or PLANNED_LATER (its run here on a later night) or PLANNED_ELSEWHERE
 * (its next run at another observatory). One that runs in an earlier night only is left out, as the projection leaves
 * out what earlier nights take; so is one the plan has not seen (submitted in the seconds since it was made).
 */
export function networkNight(options: {
  part: NetworkPlanPart;
  observatoryId: string;
  span: { from: number; to: number };
  pending: Stored[];
  running: Array<{ observation: Stored; start: Date; end: Date }>;
  now: Date;
}) {
  const { part, observatoryId, span, now } = options;
  const waiting = new Map(options.pending.map((observation) => [observation.id, observation]));
  const moment = (run: PlanRun) => Math.max(run.start.getTime(), now.getTime());
  const upcoming = part.runs.filter((run) => run.end > now && waiting.has(run.observationId) && moment(run) >= span.from);
  const inNight = upcoming.filter((run) => run.observatoryId === observatoryId && moment(run) < span.to);
  const slots = [...options.running, ...inNight.map((run) => ({ observation: waiting.get(run.observationId)!, start: run.start, end: run.end }))];
  const shown = new Set(inNight.map((run) => run.observationId));
  const nextRun = new Map<string, PlanRun>();
  for (const run of upcoming) if (!nextRun.has(run.observationId)) nextRun.set(run.observationId, run);
  const unscheduled = options.pending.flatMap((observation) => {
    if (shown.has(observation.id)) return [];
    const reason = part.reasons.get(observation.id);
    if (reason) return [{ observation, blockedBy: reason }];
    const next = nextRun.get(observation.id);
    if (!next) return [];
    const blockedBy: QueueBlock =
      next.observatoryId === observatoryId
        ? { code: "PLANNED_LATER", until: next.start }
        : { code: "PLANNED_ELSEWHERE", until: next.start, observatoryId: next.observatoryId };
    return [{ observation, blockedBy }];
  });
  return { slots, unscheduled };
}
