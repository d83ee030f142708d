import {
  candidateObservatoryIdsOf,
  hasCandidates,
  observationHistoryCollection,
  observationsCollection,
  type ObservationDoc,
  type StoredDocument,
  type UserDoc,
} from "@meridian/db";
import { activeStatuses, canMove, type ObservationStatus } from "@meridian/rules";
import type { Actor } from "../../platform/actor";
import { AppError } from "../../platform/errors";
import { publishObservatoryEvent, publishUserEvent } from "../../platform/events/publish";
import { addJob, addKeyedJobOrFollower } from "../../platform/jobs/add-job";
import { queueObservationNotifications } from "../notifications";
import type { InTransaction } from "../../platform/transaction";
import { observationReaderIds } from "./access";
import { monitoringRunEnded } from "./monitoring";

/** Who moves an observation to assigned: the dispatch, on any process. */
export const DISPATCH_ACTOR = { kind: "system", id: "dispatch" } as const satisfies Actor;

/** How long a request for the network plan waits before a worker takes it, so that the changes of a burst share one plan. */
const NETWORK_PLAN_GATHER_MS = 1_000;

/** The request for a plan each transaction already made: one serves all its changes. */
const planAsked = new WeakMap<object, Promise<unknown>>();

/**
 * Asks for the network plan to be made again once the caller's transaction commits (the feature
 * network's `network_plan`), once per transaction however many of its changes ask. Unkeyed on purpose:
 * a job key is one row that every write of the network would lock until its commit; the planning job
 * instead removes, in its own transaction, every request it can see, which its reads then cover, so a
 * burst of changes makes one plan.
 */
export function queueNetworkPlan({ t }: { t: Pick<InTransaction, "tx"> }): Promise<unknown> {
  let asked = planAsked.get(t.tx);
  if (!asked) {
    asked = addJob({ t, name: "network_plan", payload: {}, jobKey: null, runAt: new Date(Date.now() + NETWORK_PLAN_GATHER_MS) });
    planAsked.set(t.tx, asked);
  }
  return asked;
}

/**
 * Asks for a dispatch at the observatory once the caller's transaction commits, and nothing else: the observatory's
 * waiting dispatch, if there is one, serves every change that asks; one a worker took meanwhile gets a follower.
 * The network plan asks so for the observatories it starts work at.
 */
export const queueDispatchAlone = ({ t, observatoryId }: { t: Pick<InTransaction, "tx">; observatoryId: string }) =>
  addKeyedJobOrFollower({ t, name: "dispatch_observatory", payload: { observatoryId } });

/**
 * Asks for a dispatch at the observatory once the caller's transaction commits (`queueDispatchAlone`). What can make
 * an observation eligible can change the network plan too: it is asked for as well.
 */
export const queueDispatch = ({ t, observatoryId }: { t: Pick<InTransaction, "tx">; observatoryId: string }) =>
  Promise.all([queueDispatchAlone({ t, observatoryId }), queueNetworkPlan({ t })]);

/**
 * A dispatch at each of these observatories (an observation with candidates is eligible at each until one is assigned it),
 * and the network plan made again once. In the order of their ids, as the network plan asks for its dispatches: each
 * observatory's waiting dispatch is a row its transaction locks until commit, and two transactions locking two of them
 * in opposite orders deadlock (a submission with candidates against an observation's end, found by the topology check).
 */
export const queueDispatchAtEach = ({ t, observatoryIds }: { t: Pick<InTransaction, "tx">; observatoryIds: Iterable<string> }) =>
  Promise.all([...[...new Set(observatoryIds)].sort().map((observatoryId) => queueDispatchAlone({ t, observatoryId })), queueNetworkPlan({ t })]);

/** What a move needs of its transaction: the clock, and where the owner's notifications link to. */
type MoveContext = Pick<InTransaction, "tx" | "now" | "env" | "listeningOn" | "alongside">;

/** The status fields a new observation is written with: pending, from its creation. Only this module writes them. */
export const newObservationStatus = (now: string) => ({ status: "pending", statusReason: null, statusChangedAt: now }) as const;

/**
 * Writes a new observation (`doc`, pending, as `newObservationStatus` sets it) with its first history entry
 * (`actor`, `reason`) and its readers' event, and asks for a dispatch at its observatory. With `assign` (its
 * observatory is held idle for it, ADR 0033) it is written already moved on to assigned by the dispatch, the
 * move judged by the same table as `moveObservation` and recorded as that records one: its history entry, its
 * readers' event and its owner's notice (`assign.owner`, as the caller read them), and no dispatch is asked for.
 * Every statement is sent before the first answer is awaited (one round trip).
 */
export async function enterObservation(options: {
  t: MoveContext;
  id: string;
  doc: ObservationDoc;
  actor: Actor;
  reason: string | null;
  readers: string[];
  /** `tell`: told of the document as written once its statements are sent (the observatory's `assign` follows its events). */
  assign?: { owner: StoredDocument<UserDoc> | null; tell: (written: ObservationDoc) => void };
}): Promise<StoredDocument<ObservationDoc>> {
  const { t, id, actor, readers, assign } = options;
  const pending = options.doc;
  if (pending.status !== "pending") throw new Error(`A new observation enters pending, not ${pending.status}`);
  const at = pending.statusChangedAt;
  const moves: Array<{ from: ObservationStatus | null; to: ObservationStatus; actor: Actor; reason: string | null }> = [
    { from: null, to: "pending", actor, reason: options.reason },
  ];
  if (assign) {
    if (!canMove("pending", "assigned")) throw new AppError("INVALID_TRANSITION", "An observation cannot move from pending to assigned");
    moves.push({ from: "pending", to: "assigned", actor: DISPATCH_ACTOR, reason: null });
  }
  const doc: ObservationDoc = assign ? { ...pending, status: "assigned" } : pending;
  const written = Promise.all([
    observationsCollection.insert(t.tx, doc, id),
    ...moves.map((move) => recordHistory({ t, observationId: id, ...move, at })),
    assign
      ? queueObservationNotifications({ t, observation: { id, doc }, to: "assigned", reason: null, owner: assign.owner })
      : queueDispatchAtEach({ t, observatoryIds: candidateObservatoryIdsOf(doc) }),
    // Assigned at once, it holds its observatory: the plan is made again around it.
    ...(assign ? [queueNetworkPlan({ t })] : []),
  ]);
  for (const move of moves) publishStatusChanged({ t, readers, observationId: id, from: move.from, to: move.to, at });
  assign?.tell(doc);
  const [stored] = await written;
  return stored;
}

/** Tells an observation's readers of a move over `/ws`, with the transaction's last statement. */
function publishStatusChanged(options: {
  t: MoveContext;
  readers: string[];
  observationId: string;
  from: ObservationStatus | null;
  to: ObservationStatus;
  at: string;
}) {
  const { t, readers, observationId, from, to, at } = options;
  t.alongside(
    publishUserEvent({ t, userIds: readers, event: { type: "observation.status_changed", data: { id: observationId, status: to, previousStatus: from, at } } }),
  );
}

/** Work another feature does in a move's transaction once the move is written, answering the observation as it leaves it. */
export type AfterMove = (options: { t: InTransaction; observation: StoredDocument<ObservationDoc> }) => Promise<StoredDocument<ObservationDoc>>;
const afterMoveHooks: AfterMove[] = [];

/**
 * Registers work for after every move (frames: the repeat of rejected exposures, judged when a move
 * ends an observation): a door of this feature. The feature that plugs in declares it in its own
 * index.ts, so that observations import no feature that itself moves or creates observations.
 */
export function runAfterEveryMove(hook: AfterMove) {
  if (!afterMoveHooks.includes(hook)) afterMoveHooks.push(hook);
}

/**
 * The one way an observation changes status. The caller holds the row locked (`get` with
 * `forUpdate`) in its transaction, so of two concurrent moves the second sees the first's
 * result and is refused (409 INVALID_TRANSITION) when the table no longer allows it. Each move
 * is recorded (from, to, at, actor, reason) in the same transaction, readers hear of it over
 * `/ws`, its owner's notifications are queued, a running observation's observatory
 * is told of a cancel, and a freed observatory is dispatched again; all of it only if the move commits.
 */
export async function moveObservation(options: {
  t: InTransaction;
  observation: StoredDocument<ObservationDoc>;
  to: ObservationStatus;
  actor: Actor;
  reason?: string | null;
  /** A move to assigned: the observatory it is assigned to, one of its candidates (its own observatory when it names one). */
  at?: string;
}): Promise<StoredDocument<ObservationDoc>> {
  const { t, observation, to, actor } = options;
  const from = observation.doc.status;
  if (!canMove(from, to)) throw new AppError("INVALID_TRANSITION", `An observation cannot move from ${from} to ${to}`);
  let current = await record(t, observation, to, actor, options.reason ?? null, options.at);
  // A monitoring observation repeats: its end is recorded, then it waits again (spec: monitoring resets to pending),
  // until its cadence's maxRuns or until; then it ends completed for good (contract, "Time and duration").
  if (current.doc.isMonitoring && (to === "completed" || to === "failed")) {
    const run = monitoringRunEnded({ doc: current.doc, endedAt: t.now() });
    current = (await observationsCollection.update(t.tx, current.id, (doc) => ({ ...doc, monitoringRuns: run.runs }), { seen: current }))!;
    const system = { kind: "system", id: "monitoring" } as const;
    if (run.repeats) current = await record(t, current, "pending", system, `monitoring observation repeats after ${to}`);
    else if (to === "failed") current = await record(t, current, "completed", system, run.ending);
  }
  const ranAt = observation.doc.observatoryId;
  if (to === "cancelled" && activeStatuses.includes(from) && ranAt !== null) {
    await publishObservatoryEvent({ t, observatoryIds: [ranAt], event: { type: "cancel", data: { observationId: observation.id } } });
  }
  // Ended with exposures short of accepted frames: repeated when its project asks (judged here, or after its last frame's analysis).
  for (const hook of afterMoveHooks) current = await hook({ t, observation: current });
  // The observatory it leaves, and each one it may wait at again; every move changes what waits or what holds an
  // observatory, so the network plan is made again too.
  const freed = activeStatuses.includes(from) && !activeStatuses.includes(current.doc.status) && ranAt !== null ? [ranAt] : [];
  const waitsAt = current.doc.status === "pending" ? candidateObservatoryIdsOf(current.doc) : [];
  await queueDispatchAtEach({ t, observatoryIds: [...freed, ...waitsAt] });
  return current;
}

/**
 * Where the observation runs after a move to `to`: an assignment names the observatory (`assignedAt`, one of its
 * candidates); one with candidates that goes back to pending runs nowhere until it is assigned again; any other
 * move keeps it.
 */
function observatoryAfterMove(doc: ObservationDoc, to: ObservationStatus, assignedAt: string | undefined): string | null {
  if (to === "assigned") {
    const observatoryId = assignedAt ?? doc.observatoryId;
    if (observatoryId === null || !candidateObservatoryIdsOf(doc).includes(observatoryId))
      throw new AppError("INVALID_TRANSITION", "An observation is assigned only to one of its candidate observatories");
    return observatoryId;
  }
  return to === "pending" && hasCandidates(doc) ? null : doc.observatoryId;
}

async function record(
  t: InTransaction,
  observation: StoredDocument<ObservationDoc>,
  to: ObservationStatus,
  actor: Actor,
  reason: string | null,
  assignedAt?: string,
): Promise<StoredDocument<ObservationDoc>> {
  const at = t.now().toISOString();
  const from = observation.doc.status;
  const observatoryId = observatoryAfterMove(observation.doc, to, assignedAt);
  // One with candidates records where each move left it: its runs may be at different observatories (allocations follow them).
  const ranAt = hasCandidates(observation.doc) && observatoryId !== null ? { observatoryId } : {};
  // The write, its history, its readers and the owner's email and push go out together (postgres.js pipelines them
  // on the transaction's connection): a move changes none of what decides the readers (owner, project, observatory)
  // or what the messages say (name, owner, channels).
  const [[updated, , readers]] = await Promise.all([
    Promise.all([
      observationsCollection.update(
        t.tx,
        observation.id,
        (doc) => ({ ...doc, observatoryId, status: to, statusReason: reason, statusChangedAt: at, staleReportedAt: null }),
        // Callers hold the row locked: written at once, without reading it again.
        { seen: observation },
      ),
      recordHistory({ t, observationId: observation.id, from, to, at, actor, reason, ...ranAt }),
      observationReaderIds({ db: t.tx, doc: observation.doc }),
    ]),
    queueObservationNotifications({ t, observation, to, reason }),
  ]);
  publishStatusChanged({ t, readers, observationId: observation.id, from, to, at });
  return updated!;
}

/**
 * An entry of an observation's history that is no move (from and to are the status it keeps), such
 * as the note that a repeat of its missing exposures was made; integrity and analytics skip these.
 */
export const recordHistoryNote = (note: {
  t: Pick<InTransaction, "tx">;
  observationId: string;
  status: ObservationStatus;
  at: string;
  actor: Actor;
  reason: string;
}) => recordHistory({ t: note.t, observationId: note.observationId, from: note.status, to: note.status, at: note.at, actor: note.actor, reason: note.reason });

async function recordHistory(entry: {
  t: Pick<InTransaction, "tx">;
  observationId: string;
  from: ObservationStatus | null;
  to: ObservationStatus;
  at: string;
  actor: Actor;
  reason: string | null;
  observatoryId?: string;
}) {
  // Dated by the statement's clock, so two moves in one transaction keep their order.
  await observationHistoryCollection.insert(
    entry.t.tx,
    {
      observationId: entry.observationId,
      from: entry.from,
      to: entry.to,
      at: entry.at,
      actor: { kind: entry.actor.kind, id: entry.actor.id },
      reason: entry.reason,
      ...(entry.observatoryId === undefined ? {} : { observatoryId: entry.observatoryId }),
    },
    undefined,
    { stampAtStatement: true },
  );
}
