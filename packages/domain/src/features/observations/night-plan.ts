import {
  candidateObservatoryIdsOf,
  observatoriesCollection,
  plannedRunOf,
  storedFromRow,
  type Executor,
  type ObservationDoc,
  type ObservatoryDoc,
  type StoredDocument,
} from "@meridian/db";
import { activeStatuses, reportedFilters } from "@meridian/rules";
import { sql } from "drizzle-orm";
import type { UserActor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { AppError } from "../../platform/errors";
import { requireObservatoryPermission, resolveObservatoryAccess } from "../permissions";
import { loadProjectAccess } from "../projects";
import { loadObservationAccess } from "./access";
import type { ObservationCreate } from "./schemas";
import {
  currentNightDate,
  inDispatchOrder,
  moonOverNight,
  nightOf,
  observatoryReasons,
  planNights,
  presentQueueBlock,
  shiftDate,
  skyModel,
  twilightBoundaries,
  type MoonOverNight,
  type Night,
  type PlanInputs as NightsInputs,
  type PlannedNight as EnginePlannedNight,
  type QueueBlock,
  type SkyModel,
} from "@meridian/scheduler";
import { observatoryTimeZone } from "../observatories";
import { estimatedSecondsOf } from "./timings";
import { observatoryStateNow } from "./dispatch";
import { waitingAt } from "./waiting-at";
import { allowancesAt } from "./allowances";
import { networkNight, networkPlanPart, nightDateAt, nightSpan, type NetworkPlanPart } from "./network-night";

/** How many pending observations a plan reads: four times what dispatch looks at once, enough for a week of nights. */
const PLAN_READ_LIMIT = 2_000;
/** The forecast looks this many nights past the current one. */
export const FORECAST_NIGHTS = 7;
/** The furthest night a plan may be asked for, after the current one. */
export const PLAN_NIGHTS_AHEAD = 30;
const DAY_MS = 86_400_000;
const ALTITUDE_STEP_MS = 10 * 60_000;
/** Altitude curves in one plan: every planned observation's, then unscheduled ones' up to this many in all. */
const ALTITUDE_CURVES = 100;

type Stored = StoredDocument<ObservationDoc>;
/** The engine's inputs and the observatory they were read from. */
interface PlanInputs extends NightsInputs<Stored> {
  observatory: StoredDocument<ObservatoryDoc>;
}

/** What waits or runs at the observatory; one assigned or running started at its last assignment's `at` (the server's clock, as `now`). */
async function loadPlanInputs(db: Executor, observatory: StoredDocument<ObservatoryDoc>, now: Date): Promise<PlanInputs> {
  const rows = await db.execute<{ id: string; doc: ObservationDoc; created_at: string; updated_at: string; assigned_at: string | null }>(sql`
    select o.id, o.doc, o.created_at, o.updated_at,
           case when o.status = 'pending' then null else (
             select max((h.doc->>'at')::timestamptz) from observation_history h where h.observation_id = o.id and h.doc->>'to' = 'assigned') end as assigned_at
      from (
        (select * from observations waiting where ${waitingAt({ alias: "waiting", observatoryId: observatory.id })}
          order by priority desc, created_at, id limit ${PLAN_READ_LIMIT})
        union all
        (select * from observations where observatory_id = ${observatory.id} and status in ${[...activeStatuses]})
      ) o
     order by o.priority desc, o.created_at, o.id`);
  const running = rows
    .filter((row) => row.doc.status !== "pending")
    .map((row) => {
      const start = new Date(row.assigned_at ?? row.doc.statusChangedAt);
      const expectedEnd = start.getTime() + estimatedSecondsOf({ doc: row.doc, observatory: observatory.doc }) * 1000;
      return { observation: storedFromRow(row), start, end: new Date(Math.max(expectedEnd, now.getTime())) };
    });
  return {
    observatory,
    location: observatory.doc.location,
    timeZone: observatoryTimeZone({ doc: observatory.doc }),
    model: observatory.doc.location ? skyModel({ location: observatory.doc.location }) : null,
    pending: rows.filter((row) => row.doc.status === "pending").map(storedFromRow),
    running,
    allowances: new Map([...(await allowancesAt({ db, observatory, now }))].map(([projectId, allowance]) => [projectId, allowance.leftMs])),
    durationMs: (observation) => estimatedSecondsOf({ doc: observation.doc, observatory: observatory.doc }) * 1000,
    filters: reportedFilters(observatory.doc.equipment),
    now,
  };
}

type PlannedNight = EnginePlannedNight<Stored>;

const iso = (date: Date | null) => date?.toISOString() ?? null;
const presentBlock = presentQueueBlock;

function altitudeCurve(model: SkyModel, doc: ObservationDoc, from: Date, to: Date) {
  const points: Array<{ at: string; altitude: number }> = [];
  for (let at = from.getTime(); at <= to.getTime(); at += ALTITUDE_STEP_MS) {
    points.push({ at: new Date(at).toISOString(), altitude: Math.round(model.at(new Date(at)).targetAltitude(doc.targets[0]!) * 10) / 10 });
  }
  return points;
}

async function ownerNames(db: Executor, ownerIds: string[]): Promise<Map<string, string>> {
  if (ownerIds.length === 0) return new Map();
  const rows = await db.execute<{ id: string; name: string }>(sql`select id, doc->>'name' as name from users where id in ${[...new Set(ownerIds)]}`);
  return new Map(rows.map((row) => [row.id, row.name]));
}

function presentNight(night: Night | null, location: ObservatoryDoc["location"]) {
  if (!night || !location) return null;
  const twilight = twilightBoundaries({ location, night });
  return {
    sunset: night.sunset.toISOString(),
    civilDusk: iso(twilight.civilDusk),
    nauticalDusk: iso(twilight.nauticalDusk),
    darkStart: iso(night.darkStart),
    darkEnd: iso(night.darkEnd),
    nauticalDawn: iso(twilight.nauticalDawn),
    civilDawn: iso(twilight.civilDawn),
    sunrise: night.sunrise.toISOString(),
  };
}

function presentMoon(moon: MoonOverNight | null) {
  return moon
    ? { illumination: Math.round(moon.illumination * 1000) / 1000, rise: iso(moon.rise), set: iso(moon.set) }
    : { illumination: null, rise: null, set: null };
}

function requireNightDate(inputs: PlanInputs, requested: string | undefined): number {
  if (requested === undefined) return 0;
  const first = currentNightDate(inputs);
  const index = Math.round((Date.parse(`${requested}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS);
  if (!(index >= 0 && index <= PLAN_NIGHTS_AHEAD)) {
    throw new AppError("VALIDATION_FAILED", `The night must be from the current one (${first}) to ${PLAN_NIGHTS_AHEAD} nights after it`, {
      errors: [{ path: "night", message: `Must be a date from ${first} to ${shiftDate({ date: first, days: PLAN_NIGHTS_AHEAD })}` }],
    });
  }
  return index;
}

/**
 * The night asked for as the network plan in force has it, when the night begins before the plan's horizon ends (its
 * part past the horizon shows nothing planned). Else, before the first plan, before a plan made since the observatory
 * was created, and while the plan holds the observatory away (it plans nothing there until it is back), dispatch run
 * forward at this observatory alone, assuming it is back: what it would do then (`source` says which).
 */
function plannedNight(inputs: PlanInputs, part: NetworkPlanPart | null, index: number): PlannedNight & { source: "network" | "projection" } {
  const { observatory, location, timeZone, now } = inputs;
  const date = shiftDate({ date: currentNightDate(inputs), days: index });
  const horizonEnd = part?.horizonEnd.getTime() ?? 0;
  if (!part || !part.seen || part.away || horizonEnd <= now.getTime() || date > nightDateAt({ site: { location, timeZone }, at: new Date(horizonEnd - 1) })) {
    return { ...planNights(inputs, index).at(-1)!, source: "projection" };
  }
  const night = location ? nightOf({ location, timeZone, date }) : null;
  const span = nightSpan({ site: { location, timeZone }, date });
  const { slots, unscheduled } = networkNight({
    part,
    observatoryId: observatory.id,
    span,
    pending: inputs.pending,
    running: index === 0 ? inputs.running : [],
    now,
  });
  return { date, night, start: new Date(Math.max(span.from, now.getTime())), end: new Date(span.to), slots, unscheduled, source: "network" };
}

/** `GET /observatories/{id}/plan` (can_view): the network plan's slots at the observatory over one night (see `plannedNight`). */
export async function getObservatoryPlan(options: { deps: Deps; actor: UserActor; observatoryId: string; night?: string }) {
  const { deps, actor, observatoryId } = options;
  await requireObservatoryPermission({ db: deps.db, actor, observatoryId, permission: "can_view" });
  const observatory = await observatoriesCollection.get(deps.db, observatoryId);
  if (!observatory) throw new AppError("NOT_FOUND", "No such observatory");
  const [inputs, part] = await Promise.all([loadPlanInputs(deps.db, observatory, deps.now()), networkPlanPart({ db: deps.db, observatoryId })]);
  // Every observation shown waits or runs here, where the caller may view: each is one the caller may read.
  const planned = plannedNight(inputs, part, requireNightDate(inputs, options.night));
  const location = observatory.doc.location;
  const names = await ownerNames(
    deps.db,
    planned.slots.map((slot) => slot.observation.doc.ownerId),
  );
  const curves = inputs.model
    ? [...planned.slots.map((slot) => slot.observation), ...planned.unscheduled.map((item) => item.observation)].slice(0, ALTITUDE_CURVES)
    : [];
  const from = planned.night?.sunset ?? planned.start;
  const to = planned.night?.sunrise ?? planned.end;
  return {
    observatoryId,
    timeZone: inputs.timeZone,
    date: planned.date,
    source: planned.source,
    horizonEnd: part?.horizonEnd.toISOString() ?? null,
    night: presentNight(planned.night, location),
    moon: presentMoon(location && planned.night ? moonOverNight({ location, night: planned.night }) : null),
    slots: planned.slots.map((slot) => ({
      observationId: slot.observation.id,
      name: slot.observation.doc.name,
      priority: slot.observation.doc.priority,
      status: slot.observation.doc.status,
      ownerId: slot.observation.doc.ownerId,
      ownerName: names.get(slot.observation.doc.ownerId) ?? null,
      start: slot.start.toISOString(),
      end: slot.end.toISOString(),
    })),
    unscheduled: planned.unscheduled.map((item) => ({
      observationId: item.observation.id,
      name: item.observation.doc.name,
      priority: item.observation.doc.priority,
      blockedBy: presentBlock(item.blockedBy),
    })),
    altitude: curves.map((observation) => ({
      observationId: observation.id,
      target: { name: observation.doc.targets[0]!.name, count: observation.doc.targets.length },
      minAltitude: observation.doc.constraints.minAltitude ?? 30,
      points: altitudeCurve(inputs.model!, observation.doc, from, to),
    })),
  };
}

/** What holds every observation at the observatory now (the forecast assumes none of it), for those who may view it. */
async function heldNow(deps: Deps, observatory: StoredDocument<ObservatoryDoc> | undefined) {
  if (!observatory) return [];
  return observatoryReasons({ ...(await observatoryStateNow({ db: deps.db, observatory })), busy: false }).map(presentBlock);
}

/** Where the observation lands in the plans of the current night and the 7 after it (its own reasons when in none). */
async function forecastIn(options: {
  deps: Deps;
  observatory: StoredDocument<ObservatoryDoc> | undefined;
  observationId: string;
  extra?: StoredDocument<ObservationDoc>;
}) {
  const { deps, observatory, observationId } = options;
  const timeZone = observatory ? observatoryTimeZone({ doc: observatory.doc }) : "UTC";
  const none = (blockedBy: QueueBlock | null) => ({
    timeZone,
    expectedStart: null,
    expectedEnd: null,
    night: null,
    blockedBy: blockedBy && presentBlock(blockedBy),
  });
  if (!observatory) return none(null);
  const inputs = await loadPlanInputs(deps.db, observatory, deps.now());
  if (options.extra) inputs.pending = inDispatchOrder([...inputs.pending, options.extra]);
  const find = (night: PlannedNight) => night.slots.find((slot) => slot.observation.id === observationId);
  const nights = planNights(inputs, FORECAST_NIGHTS, (night) => Boolean(find(night)));
  const found = nights.find(find);
  const slot = found && find(found);
  if (slot) {
    return {
      timeZone,
      expectedStart: slot.start.toISOString(),
      expectedEnd: slot.end.toISOString(),
      night: found.date,
      blockedBy: null,
    };
  }
  return none(nights[0]?.unscheduled.find((item) => item.observation.id === observationId)?.blockedBy ?? null);
}

/**
 * A waiting observation's forecast from the network plan in force: its next run there (where, when, and the night it
 * falls in, dated as the night plan dates it). Null when the plan has none: left out, or not yet seen by a plan.
 */
async function plannedForecast(deps: Deps, observation: StoredDocument<ObservationDoc>) {
  if (observation.doc.status !== "pending") return null;
  const now = deps.now();
  const run = await plannedRunOf({ db: deps.db, observationId: observation.id, now });
  const observatory = run && (await observatoriesCollection.get(deps.db, run.observatoryId));
  if (!run || !observatory) return null;
  const timeZone = observatoryTimeZone({ doc: observatory.doc });
  const site = { location: observatory.doc.location ?? null, timeZone };
  return {
    observatory,
    forecast: {
      timeZone,
      expectedStart: run.start.toISOString(),
      expectedEnd: run.end.toISOString(),
      night: nightDateAt({ site, at: new Date(Math.max(run.start.getTime(), now.getTime())) }),
      blockedBy: null,
    },
  };
}

/** Of forecasts at several observatories, the one that starts first (the first given when none starts). */
function earliestOf<Forecast extends { expectedStart: string | null }>(
  forecasts: Array<{ observatory: StoredDocument<ObservatoryDoc> | undefined; forecast: Forecast }>,
) {
  const starting = forecasts.filter((each) => each.forecast.expectedStart !== null);
  starting.sort((a, b) => a.forecast.expectedStart!.localeCompare(b.forecast.expectedStart!));
  return starting[0] ?? forecasts[0]!;
}

/**
 * The forecast at each observatory it may run at, and the one that starts first: until the network plan decides among its
 * candidates, a waiting observation with candidates is dispatched at each, so it starts where it may start first.
 */
async function forecastAtEach(options: { deps: Deps; observatoryIds: string[]; observationId: string; extra?: StoredDocument<ObservationDoc> }) {
  const { deps, observationId, extra } = options;
  const forecasts = await Promise.all(
    options.observatoryIds.map(async (observatoryId) => {
      const observatory = (await observatoriesCollection.get(deps.db, observatoryId)) ?? undefined;
      return { observatory, forecast: await forecastIn({ deps, observatory, observationId, ...(extra ? { extra } : {}) }) };
    }),
  );
  return earliestOf(forecasts);
}

/**
 * `GET /observations/{id}/forecast` (readers): a pending one's next run in the network plan in force, where the plan has
 * one; else when dispatch, run forward, would start it, up to 7 nights ahead (one with candidates, at whichever of them
 * would start it first); one assigned or running, its expected end.
 */
export async function getObservationForecast(options: { deps: Deps; actor: UserActor; observationId: string }) {
  const { deps, actor, observationId } = options;
  const { observation } = await loadObservationAccess({ db: deps.db, actor, observationId });
  const { doc } = observation;
  const waiting = doc.status === "pending" || activeStatuses.includes(doc.status);
  const observatoryIds = doc.observatoryId === null ? candidateObservatoryIdsOf(doc) : [doc.observatoryId];
  const planned = await plannedForecast(deps, observation);
  const { observatory, forecast } =
    planned ??
    (waiting
      ? await forecastAtEach({ deps, observatoryIds, observationId })
      : { observatory: undefined, forecast: await forecastIn({ deps, observatory: undefined, observationId }) });
  // A project member may read the observation without seeing its observatory, whose state is can_view's alone.
  const shownId = observatory?.id ?? observatoryIds[0]!;
  const access = await resolveObservatoryAccess({
    db: deps.db,
    userId: actor.id,
    isServerAdmin: actor.isServerAdmin,
    observatoryIds: [shownId],
    includeRemoved: true,
  });
  const showsObservatory = Boolean(access.get(shownId)?.can_view);
  // Where it runs: the observatory it is assigned to or runs at, or the one of its next run in the plan (null when none).
  const shown = { ...forecast, observatoryId: planned?.observatory.id ?? (activeStatuses.includes(doc.status) ? doc.observatoryId : null) };
  return showsObservatory ? { ...shown, observatoryReasons: await heldNow(deps, observatory) } : shown;
}

/**
 * `POST /observations/forecast`: the estimate and the forecast of an observation not yet submitted,
 * as the wizard's review shows them. Whoever may create it may ask; nothing is stored. It joins the
 * queue as a new submission would: after every pending one of its priority. With candidates (can_observe on each): at
 * whichever would start it first, with the estimate by its first candidate's settings, as the observation would read.
 */
export async function forecastDraft(options: { deps: Deps; actor: UserActor; input: ObservationCreate }) {
  const { deps, actor, input } = options;
  const { observatoryId, candidateObservatoryIds, ...fields } = input;
  const observatoryIds = candidateObservatoryIds ?? [observatoryId!];
  for (const each of observatoryIds) await requireObservatoryPermission({ db: deps.db, actor, observatoryId: each, permission: "can_observe" });
  await loadProjectAccess({ db: deps.db, actor, projectId: input.projectId });
  const now = deps.now();
  const draft: StoredDocument<ObservationDoc> = {
    id: DRAFT_ID,
    createdAt: now,
    updatedAt: now,
    doc: {
      ...fields,
      observatoryId: candidateObservatoryIds ? null : observatoryId!,
      candidateObservatoryIds: observatoryIds,
      notifications: input.notifications ?? { email: true, push: true, states: [] },
      ownerId: actor.id,
      status: "pending",
      statusReason: null,
      statusChangedAt: now.toISOString(),
      isMonitoring: input.type === "monitoring",
      staleReportedAt: null,
    },
  };
  const { observatory, forecast } = await forecastAtEach({ deps, observatoryIds, observationId: DRAFT_ID, extra: draft });
  const first = observatoryIds[0] === observatory?.id ? observatory : await observatoriesCollection.get(deps.db, observatoryIds[0]!);
  if (!observatory || !first) throw new AppError("NOT_FOUND", "No such observatory");
  return {
    estimatedSeconds: estimatedSecondsOf({ doc: draft.doc, observatory: first.doc }),
    ...forecast,
    observatoryReasons: await heldNow(deps, observatory),
  };
}

/** Sorts after every real id of the same priority and time (ids start with `obn_`). */
const DRAFT_ID = "~draft";
