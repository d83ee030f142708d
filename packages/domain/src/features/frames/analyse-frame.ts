import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { filesCollection, observationsCollection, observatoriesCollection, projectsCollection, type FrameDoc } from "@meridian/db";
import {
  DEFAULT_FRAME_GRADING,
  gradeFrame,
  queuedFrameAnalysis,
  separationArcsec,
  type FrameAnalysis,
  type FrameGrading,
  type SolveFailure,
} from "@meridian/rules/frames";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { addJob } from "../../platform/jobs/add-job";
import { tellStarCatalogMissingOnce } from "./star-catalog-notice";
import { inTransaction, type InTransaction } from "../../platform/transaction";
import { FrameUnreadable, readFitsImage, type FitsImage } from "./fits-header";
import { expectedPixelScale, frameHeaderOf, frameTarget } from "./frame-header";
import { framePreview, type FramePreview } from "./frame-preview";
import { measureStars } from "./measure-stars";
import { plateSolve, starCatalogPresent, type SolveHints } from "./plate-solve";
import { ToolFailure } from "./run-tool";
import { makeWorkFolder, removeWorkFolder } from "./work-folders";

/** graphile-worker's flag on analysis jobs: a worker with all its analysis slots busy takes none (`frameAnalysisForbiddenFlags`). */
export const FRAME_ANALYSIS_FLAG = "frame_analysis";
/** Fewer sources than this and the solver is not tried (`TOO_FEW_STARS`): astrometry.net matches quads of 4 and verifies with more. */
const MIN_SOURCES_TO_SOLVE = 5;
/** Tries of one analysis: a killed worker's attempt is run again once by another, and once more for bad luck. */
export const ANALYSIS_ATTEMPTS = 3;

/** A frame as the upload records it: queued, with the id its job carries. */
export const queuedFrame = (): FrameDoc => ({ ...queuedFrameAnalysis(), analysisId: randomUUID() });

/** Queues a frame's analysis in the caller's transaction (the upload's, or a request to analyse again): a waiting one of the same file is replaced. */
export async function queueFrameAnalysis(options: { t: Pick<InTransaction, "tx">; fileId: string; analysisId: string }) {
  await addJob({
    t: options.t,
    name: "analyse_frame",
    payload: { fileId: options.fileId, analysisId: options.analysisId },
  });
}

const runningAnalyses = new WeakMap<Deps, { running: number; waiting: Array<() => void> }>();
const slotsOf = (deps: Deps) => {
  let slots = runningAnalyses.get(deps);
  if (!slots) runningAnalyses.set(deps, (slots = { running: 0, waiting: [] }));
  return slots;
};

/**
 * For graphile-worker's `forbiddenFlags`: while this process runs FRAME_ANALYSIS_CONCURRENCY
 * analyses, its runners take no other, so analyses waiting for a slot never hold the runs that
 * dispatch and email need. Two runs that look at once may both take one: the slot below bounds them.
 */
export const frameAnalysisForbiddenFlags = (deps: Deps) => (): string[] | null =>
  slotsOf(deps).running >= deps.env.FRAME_ANALYSIS_CONCURRENCY ? [FRAME_ANALYSIS_FLAG] : null;

async function inSlot<T>(deps: Deps, work: () => Promise<T>): Promise<T> {
  const slots = slotsOf(deps);
  while (slots.running >= deps.env.FRAME_ANALYSIS_CONCURRENCY) await new Promise<void>((resolve) => slots.waiting.push(resolve));
  slots.running += 1;
  try {
    return await work();
  } finally {
    slots.running -= 1;
    slots.waiting.shift()?.();
    // Idle runners that skipped analyses while the slots were full look again now, not at their next poll.
    await deps.db.execute(sql`select pg_notify('jobs:insert', '{"count":1}')`).catch(() => undefined);
  }
}

type Outcome =
  { kind: "not_a_frame" } | { kind: "failed"; reason: string } | { kind: "analysed"; analysis: FrameAnalysis; catalogMissing: boolean; mirrored: boolean };

interface Subject {
  objectKey: string;
  targets: Array<{ name: string; ra: number; dec: number }>;
  equipment: unknown;
  grading: typeof DEFAULT_FRAME_GRADING;
  preview: FramePreview;
}

/** The frame's bytes, streamed from object storage to a file of the work folder: never whole in memory. */
async function download(deps: Deps, objectKey: string, framePath: string, signal: AbortSignal) {
  const stored = await deps.storage.get(objectKey);
  if (!stored) throw new FrameUnreadable("The frame's bytes are missing from storage");
  await pipeline(stored.body, createWriteStream(framePath, { flags: "wx", mode: 0o600 }), { signal });
}

async function measureAndSolve(options: { deps: Deps; subject: Subject; folder: string; signal: AbortSignal; deadline: number }): Promise<Outcome> {
  const { deps, subject, folder, signal } = options;
  // The file's name here is ours: neither the upload's filename nor anything of its header reaches a path or an argument.
  const framePath = path.join(folder, "frame.fits");
  await download(deps, subject.objectKey, framePath, signal);
  const handle = await fs.open(framePath);
  let image: FitsImage | null;
  try {
    image = await readFitsImage(handle);
  } finally {
    await handle.close();
  }
  if (!image) return { kind: "not_a_frame" };
  await subject.preview.render({ framePath, image });
  const header = frameHeaderOf(image);
  const secondsLeft = () => Math.max(1, (options.deadline - Date.now()) / 1000);
  const measures = await measureStars({ framePath, folder, cpuSeconds: secondsLeft(), signal });
  const catalogMissing = !(await starCatalogPresent(deps.env.STAR_CATALOG_DIR));
  const hintScale = expectedPixelScale({ equipment: subject.equipment, image, header });
  let solution: FrameAnalysis["solution"] = null;
  let mirrored = false;
  let solveFailure: SolveFailure | null = null;
  if (catalogMissing) solveFailure = "CATALOG_MISSING";
  else if (measures.stars < MIN_SOURCES_TO_SOLVE) solveFailure = "TOO_FEW_STARS";
  else {
    const hints: SolveHints = { ra: header.ra, dec: header.dec, pixelScaleArcsec: hintScale };
    const solve = (given: SolveHints) =>
      plateSolve({
        framePath,
        hdu: image.hdu,
        size: image,
        folder,
        catalogDir: deps.env.STAR_CATALOG_DIR,
        hints: given,
        cpuSeconds: secondsLeft(),
        signal,
      }).catch((error: unknown) => {
        // The solver's own failure is an unsolved frame; running out of time fails the analysis.
        if (error instanceof ToolFailure && error.kind === "exit") return null;
        throw error;
      });
    let solved = await solve(hints);
    // Hints narrow the search, and a wrong one (a header from another pointing, a changed camera) hides the answer: blind once more.
    const hinted = hints.ra !== null || hints.pixelScaleArcsec !== null;
    if (!solved && hinted) solved = await solve({ ra: null, dec: null, pixelScaleArcsec: null });
    ({ solution, mirrored } = solved ?? { solution: null, mirrored: false });
    if (!solution) solveFailure = "NOT_SOLVED";
  }
  const target = frameTarget({ targets: subject.targets, header });
  const scale = solution?.pixelScaleArcsec ?? hintScale;
  const inArcsec = (pixels: number | null) => (pixels !== null && scale !== null ? pixels * scale : null);
  const measured = {
    stars: measures.stars,
    fwhmArcsec: inArcsec(measures.fwhmPixels),
    hfrArcsec: inArcsec(measures.hfrPixels),
    eccentricity: measures.eccentricity,
    backgroundAdu: measures.backgroundAdu,
    solution,
    solveFailure,
    pointingOffsetArcsec: solution && target ? separationArcsec(solution, target) : null,
  };
  return {
    kind: "analysed",
    catalogMissing,
    mirrored,
    analysis: {
      ...queuedFrameAnalysis(),
      ...measured,
      status: "analysed",
      header,
      targetName: target?.name ?? null,
      ...gradeFrame(measured, subject.grading),
    },
  };
}

/** Why an analysis ended without a result, in words for the frame's `failure`. */
function failureReason(deps: Deps, error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `The analysis took longer than ${deps.env.FRAME_ANALYSIS_TIMEOUT_SECONDS} s (FRAME_ANALYSIS_TIMEOUT_SECONDS) and was stopped`;
  if (error instanceof FrameUnreadable) return `The frame cannot be read: ${error.message}`;
  if (error instanceof ToolFailure) return `The frame could not be analysed: ${error.message}`;
  return `The frame could not be analysed: ${(error as Error).message}`.slice(0, 500);
}

/**
 * The `analyse_frame` job: one frame's analysis, as the contract says. It works in a folder of its
 * own, removed however it ends (a killed worker's are removed at the next start), within
 * FRAME_ANALYSIS_TIMEOUT_SECONDS of wall time, each tool capped in CPU time as well, and in one of
 * the process's FRAME_ANALYSIS_CONCURRENCY slots. A frame that cannot be read ends `failed` with
 * the reason. The result is written only while the frame still waits for this very analysis:
 * a second run of the same job (its first was killed after writing, or it was queued twice) and
 * a job of a request replaced since write nothing. A frame without a preview gets one made from
 * its pixels, recorded with the result (`framePreview`).
 */
export async function analyseFrame(options: { deps: Deps; fileId: string; analysisId: string }): Promise<"skipped" | FrameAnalysis["status"] | "not_a_frame"> {
  const { deps, fileId, analysisId } = options;
  const waitingFor = (doc: { frame?: FrameDoc | null }) => doc.frame?.status === "queued" && doc.frame.analysisId === analysisId;
  const file = await filesCollection.get(deps.db, fileId);
  if (!file || !waitingFor(file.doc)) return "skipped";
  const observation = await observationsCollection.get(deps.db, file.doc.observationId);
  if (!observation) return "skipped";
  const [observatory, project] = await Promise.all([
    observatoriesCollection.get(deps.db, file.doc.observatoryId),
    projectsCollection.get(deps.db, observation.doc.projectId),
  ]);
  const subject: Subject = {
    objectKey: file.doc.objectKey,
    targets: observation.doc.targets,
    equipment: observatory?.doc.equipment,
    grading: project?.doc.frameGrading ?? DEFAULT_FRAME_GRADING,
    preview: await framePreview({ deps, frame: file }),
  };
  const outcome = await inSlot(deps, async (): Promise<Outcome> => {
    const timeoutMs = deps.env.FRAME_ANALYSIS_TIMEOUT_SECONDS * 1000;
    const signal = AbortSignal.timeout(timeoutMs);
    const folder = await makeWorkFolder();
    try {
      return await measureAndSolve({ deps, subject, folder, signal, deadline: Date.now() + timeoutMs });
    } catch (error) {
      const reason = failureReason(deps, error, signal);
      deps.logger.warn({ fileId, reason }, "a frame's analysis failed");
      return { kind: "failed", reason };
    } finally {
      await removeWorkFolder(folder).catch((error: unknown) => deps.logger.warn({ err: error, folder }, "could not remove an analysis folder"));
    }
  });
  await subject.preview.store();
  const written = await inTransaction(deps, async (t) => {
    // Graded under the project's grading as it is now, read FOR SHARE before the frame is locked (the order a change of the
    // grading takes them in): a change made during the analysis is not undone by a grade from before it.
    const [held] = await t.tx.execute<{ grading: FrameGrading | null }>(
      sql`select doc->'frameGrading' as grading from projects where id = ${observation.doc.projectId} for share`,
    );
    const current = await filesCollection.get(t.tx, fileId, { forUpdate: true });
    if (!current || !waitingFor(current.doc)) return false;
    const analysedAt = t.now().toISOString();
    const frame: FrameDoc | null =
      outcome.kind === "not_a_frame"
        ? null
        : outcome.kind === "failed"
          ? { ...current.doc.frame!, status: "failed", failure: outcome.reason, analysedAt }
          : {
              ...outcome.analysis,
              ...gradeFrame(outcome.analysis, held?.grading ?? DEFAULT_FRAME_GRADING),
              analysedAt,
              analysisId,
              ...(outcome.mirrored ? { mirrored: true } : {}),
            };
    await filesCollection.update(t.tx, fileId, (doc) => ({ ...doc, frame }), { seen: current });
    await subject.preview.record(t);
    return true;
  }).finally(() => subject.preview.settle());
  if (!written) return "skipped";
  if (outcome.kind === "analysed" && outcome.catalogMissing) await tellStarCatalogMissingOnce({ deps }).catch(() => undefined);
  return outcome.kind === "not_a_frame" ? "not_a_frame" : outcome.kind;
}
