import { candidateObservatoryIdsOf, hasCandidates, observationsCollection, usersCollection, type ObservationDoc, type StoredDocument } from "@meridian/db";
import { sql } from "drizzle-orm";
import { actorFromUser, type Actor } from "../../platform/actor";
import type { Deps } from "../../platform/deps";
import { findStorageDestination } from "../organizations";
import {
  observationReaderIds,
  holdLiveObservatories,
  holdProjectForObservation,
  insertObservation,
  MAX_UNFINISHED_OBSERVATIONS,
  type NewObservationFields,
  recordHistoryNote,
  exposureProgress,
  frameTallies,
  type ExposureProgress,
} from "../observations";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { frameCounts } from "../notifications";

/** A repeat of a repeat is made; a repeat of that is not (contract: "at most 2 repeats deep"). */
const MAX_REPEAT_DEPTH = 2;
const REPEAT_ACTOR = { kind: "system", id: "repeat" } as const satisfies Actor;
const ENDINGS: ReadonlyArray<ObservationDoc["status"]> = ["completed", "partially_completed"];

type Targets = ObservationDoc["targets"];

/**
 * Whether the observation could still get a repeat: ended, not judged before, not a repeat as deep as they go. A monitoring
 * observation is not repeated: its frames add up over its runs, while its lines say what one run takes.
 */
const awaitsJudgement = (doc: ObservationDoc) =>
  ENDINGS.includes(doc.status) && !doc.isMonitoring && doc.repeatedAs === undefined && (doc.repeatNumber ?? 0) < MAX_REPEAT_DEPTH;

/** The exposures the lines lack: desired − accepted on each short line; lines met, and targets left without lines, dropped. */
function missingExposures(targets: Targets, progress: readonly ExposureProgress[]): Targets | null {
  let line = 0;
  const missing = targets.flatMap((target) => {
    const exposures = target.exposures.flatMap((exposure) => {
      const row = progress[line++]!;
      return row.accepted < row.desired ? [{ ...exposure, count: row.desired - row.accepted }] : [];
    });
    return exposures.length > 0 ? [{ ...target, exposures }] : [];
  });
  return missing.length > 0 ? (missing as Targets) : null;
}

/** `<name> (repeat N)`, from the name of the first of the line (a repeat's own suffix is replaced), within the 200 characters a name may have. */
function repeatName(doc: ObservationDoc, number: number): string {
  const base = doc.repeatOf ? doc.name.replace(/ \(repeat \d+\)$/, "") : doc.name;
  const suffix = ` (repeat ${number})`;
  return `${Array.from(base)
    .slice(0, 200 - suffix.length)
    .join("")
    .trimEnd()}${suffix}`;
}

/**
 * Writes the repeat through the domain's creation path, as a clone does (its observatory held
 * against removal, its project held and its room counted, its window checked, its
 * readers told, a dispatch asked for), owned by the source's owner and recorded as the server's.
 * Answers its id, or why it cannot be made.
 */
async function makeRepeat(t: InTransaction, source: StoredDocument<ObservationDoc>, targets: Targets): Promise<{ id: string } | { refused: string }> {
  const { doc } = source;
  const [live, held, owner, readers, destination] = await Promise.all([
    // Where the source could run: its observatory, or every one of its candidates.
    holdLiveObservatories({ t, observatoryIds: candidateObservatoryIdsOf(doc) }),
    holdProjectForObservation({ t, projectId: doc.projectId }),
    usersCollection.get(t.tx, doc.ownerId),
    observationReaderIds({ db: t.tx, doc }),
    doc.storageDestinationId ? findStorageDestination({ db: t.tx, projectId: doc.projectId, destinationId: doc.storageDestinationId }) : null,
  ]);
  if (!live) return { refused: hasCandidates(doc) ? "an observatory it may run at was removed" : "its observatory was removed" };
  if (held.project?.status !== "active") return { refused: `its project is ${held.project?.status ?? "deleted"}` };
  if (!owner || owner.doc.disabled) return { refused: "its owner's account is disabled or deleted" };
  if (!held.room) return { refused: `its project holds ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations, the most one may` };
  // A window closed by now, which a creation refuses (refuseWindowInThePast): the repeat could never run.
  if (doc.fixedTimeEnd && new Date(doc.fixedTimeEnd) <= t.now()) return { refused: "its time window has closed" };
  const number = (doc.repeatNumber ?? 0) + 1;
  const fields: NewObservationFields = {
    name: repeatName(doc, number),
    projectId: doc.projectId,
    observatoryId: hasCandidates(doc) ? null : doc.observatoryId,
    candidateObservatoryIds: candidateObservatoryIdsOf(doc),
    type: doc.type,
    priority: doc.priority,
    targets,
    constraints: doc.constraints,
    fixedTimeStart: doc.fixedTimeStart,
    fixedTimeEnd: doc.fixedTimeEnd,
    bypassDarkness: doc.bypassDarkness,
    notifications: doc.notifications,
    // A destination removed since is left out rather than refusing the repeat.
    storageDestinationId: destination ? doc.storageDestinationId : null,
    repeat: { of: source.id, number },
  };
  const lacking = targets.flatMap((target) => target.exposures).reduce((sum, exposure) => sum + exposure.count, 0);
  const repeat = await insertObservation({
    t,
    actor: actorFromUser({ user: owner }),
    fields,
    room: held.room,
    reason: `repeat of ${source.id}: ${lacking} ${lacking === 1 ? "exposure" : "exposures"} without an accepted frame`,
    readers,
    recordedBy: REPEAT_ACTOR,
  });
  return { id: repeat.id };
}

/**
 * Judges once whether an ended observation's missing exposures are repeated (contract: "Frames"):
 * when it ended completed or partially_completed, its project's frameGrading.repeatRejected is
 * true and none of its frames is still queued, a line with fewer accepted frames than desired gets
 * a new pending observation of just what is missing (`makeRepeat`). The judgement is written on the
 * observation (`repeatedAs`: the repeat's id, or null when none was needed or it could not be made)
 * with a history entry when one was made or refused, so it is never made twice. The caller holds
 * the observation's row locked in its transaction: the status move that ends it, or the transaction
 * after a frame's analysis (`repeatAfterAnalysis`); the two take turns on the lock, so whichever
 * comes last judges, and sees what the other committed. Answers the observation as it is now.
 */
export async function judgeRepeat(options: { t: InTransaction; observation: StoredDocument<ObservationDoc> }): Promise<StoredDocument<ObservationDoc>> {
  const { t, observation } = options;
  const { doc } = observation;
  if (!awaitsJudgement(doc)) return observation;
  const [project] = await t.tx.execute<{ asked: boolean | null }>(
    sql`select (doc->'frameGrading'->>'repeatRejected')::boolean as asked from projects where id = ${doc.projectId}`,
  );
  if (!project?.asked) return observation;
  const [counts, tallies] = await Promise.all([
    frameCounts({ db: t.tx, observationId: observation.id }),
    frameTallies({ db: t.tx, observationIds: [observation.id] }),
  ]);
  if (counts.queued > 0) return observation;
  const targets = missingExposures(doc.targets, exposureProgress({ targets: doc.targets, tallies: tallies.get(observation.id) ?? [] }));
  const made = targets ? await makeRepeat(t, observation, targets) : null;
  const repeatedAs = made && "id" in made ? made.id : null;
  const reason = made && ("id" in made ? `repeated as ${made.id}: the exposures without an accepted frame` : `not repeated: ${made.refused}`);
  const [judged] = await Promise.all([
    observationsCollection.update(t.tx, observation.id, (current) => ({ ...current, repeatedAs }), { seen: observation }),
    reason && recordHistoryNote({ t, observationId: observation.id, status: doc.status, at: t.now().toISOString(), actor: REPEAT_ACTOR, reason }),
  ]);
  return judged!;
}

/**
 * After a frame's analysis ended (written, or written by an attempt killed before its job
 * finished), the repeat of its observation is judged if it may be due: one read, and a transaction
 * holding the observation's row only then. The read waits FOR SHARE for a move holding the row: a
 * move that ends the observation, counting this frame still queued before the analysis committed,
 * has committed its status by the time the read answers, so one of the two judges. Safe to call any
 * number of times.
 */
export async function repeatAfterAnalysis(options: { deps: Deps; fileId: string }): Promise<void> {
  const { deps, fileId } = options;
  const [row] = await deps.db.execute<{ observation_id: string; doc: ObservationDoc; asked: boolean | null }>(sql`
    select o.id as observation_id, o.doc, (p.doc->'frameGrading'->>'repeatRejected')::boolean as asked
      from files f join observations o on o.id = f.observation_id join projects p on p.id = o.project_id
     where f.id = ${fileId} and f.doc->'frame'->>'status' is distinct from 'queued'
       for share of o`);
  if (!row?.asked || !awaitsJudgement(row.doc)) return;
  await inTransaction(deps, async (t) => {
    const observation = await observationsCollection.get(t.tx, row.observation_id, { forUpdate: true });
    if (observation) await judgeRepeat({ t, observation });
  });
}

// Judged in the move that ends an observation, whichever of it and the last analysis comes last.
