import { observationHistoryCollection, observationsCollection, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { activeStatuses, canMove, type ObservationStatus } from "@meridian/rules";
import type { Actor } from "../actor";
import { AppError } from "../errors";
import { publishObservatoryEvent, publishUserEvent } from "../events/publish";
import { judgeRepeat } from "../frames/repeat-rejected";
import { addKeyedJobOrFollower } from "../jobs/add-job";
import { queueObservationNotifications } from "../notifications/notify";
import type { InTransaction } from "../transaction";
import { observationReaderIds } from "./access";
import { monitoringRunEnded } from "./monitoring";

const dispatchJobKey = (observatoryId: string) => `dispatch:${observatoryId}`;

/** Who moves an observation to assigned: the dispatch, on any process. */
export const DISPATCH_ACTOR = { kind: "system", id: "dispatch" } as const satisfies Actor;

/**
 * Asks for a dispatch at the observatory once the caller's transaction commits: the observatory's
 * waiting dispatch, if there is one, serves every change that asks; one a worker took meanwhile gets a follower.
 */
export const queueDispatch = ({ t, observatoryId }: { t: Pick<InTransaction, "tx">; observatoryId: string }) =>
  addKeyedJobOrFollower({ t, name: "dispatch_observatory", payload: { observatoryId }, jobKey: dispatchJobKey(observatoryId), maxAttempts: 5 });

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
}): Promise<StoredDocument<ObservationDoc>> {
  const { t, observation, to, actor } = options;
  const from = observation.doc.status;
  if (!canMove(from, to)) throw new AppError("INVALID_TRANSITION", `An observation cannot move from ${from} to ${to}`);
  let current = await record(t, observation, to, actor, options.reason ?? null);
  // A monitoring observation repeats: its end is recorded, then it waits again (spec: monitoring resets to pending),
  // until its cadence's maxRuns or until; then it ends completed for good (contract, "Time and duration").
  if (current.doc.isMonitoring && (to === "completed" || to === "failed")) {
    const run = monitoringRunEnded({ doc: current.doc, endedAt: t.now() });
    current = (await observationsCollection.update(t.tx, current.id, (doc) => ({ ...doc, monitoringRuns: run.runs }), { seen: current }))!;
    const system = { kind: "system", id: "monitoring" } as const;
    if (run.repeats) current = await record(t, current, "pending", system, `monitoring observation repeats after ${to}`);
    else if (to === "failed") current = await record(t, current, "completed", system, run.ending);
  }
  if (to === "cancelled" && activeStatuses.includes(from)) {
    await publishObservatoryEvent({ t, observatoryIds: [observation.doc.observatoryId], event: { type: "cancel", data: { observationId: observation.id } } });
  }
  // Ended with exposures short of accepted frames: repeated when its project asks (judged here, or after its last frame's analysis).
  current = await judgeRepeat({ t, observation: current });
  const freesObservatory = activeStatuses.includes(from) && !activeStatuses.includes(current.doc.status);
  if (freesObservatory || current.doc.status === "pending") await queueDispatch({ t, observatoryId: observation.doc.observatoryId });
  return current;
}

async function record(
  t: InTransaction,
  observation: StoredDocument<ObservationDoc>,
  to: ObservationStatus,
  actor: Actor,
  reason: string | null,
): Promise<StoredDocument<ObservationDoc>> {
  const at = t.now().toISOString();
  const from = observation.doc.status;
  // The write, its history, its readers and the owner's email and push go out together (postgres.js pipelines them
  // on the transaction's connection): a move changes none of what decides the readers (owner, project, observatory)
  // or what the messages say (name, owner, channels).
  const [[updated, , readers]] = await Promise.all([
    Promise.all([
      observationsCollection.update(
        t.tx,
        observation.id,
        (doc) => ({ ...doc, status: to, statusReason: reason, statusChangedAt: at, staleReportedAt: null }),
        // Callers hold the row locked: written at once, without reading it again.
        { seen: observation },
      ),
      recordHistory({ t, observationId: observation.id, from, to, at, actor, reason }),
      observationReaderIds({ db: t.tx, doc: observation.doc }),
    ]),
    queueObservationNotifications({ t, observation, to, reason }),
  ]);
  t.alongside(
    publishUserEvent({
      t,
      userIds: readers,
      event: { type: "observation.status_changed", data: { id: observation.id, status: to, previousStatus: from, at } },
    }),
  );
  return updated!;
}

export async function recordHistory(entry: {
  t: Pick<InTransaction, "tx">;
  observationId: string;
  from: ObservationStatus | null;
  to: ObservationStatus;
  at: string;
  actor: Actor;
  reason: string | null;
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
    },
    undefined,
    { stampAtStatement: true },
  );
}
