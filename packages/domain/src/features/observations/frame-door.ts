import type { Readable } from "node:stream";
import type { FrameDoc } from "@meridian/db";
import type { FrameSolution } from "@meridian/rules/frames";
import { defineDoor } from "../../platform/door";
import type { InTransaction } from "../../platform/transaction";

/**
 * What observations' files ask of frames, which build on observations: frames plug it in from their own index.ts
 * (`readFramesWith`), so that observations import no feature that itself reads or creates observations.
 */
export interface FrameDoor {
  /** The frame record a new upload starts with, from its first bytes; null when it is no FITS image. */
  frameOf(firstBytes: Buffer): FrameDoc | null;
  /** Queues the frame's analysis in the upload's transaction. */
  queueAnalysis(options: { t: Pick<InTransaction, "tx">; fileId: string; analysisId: string }): Promise<void>;
  /** A solved frame's bytes with its solution written into the header. */
  withSolution(options: {
    body: Readable;
    contentLength: number;
    solution: FrameSolution;
    mirrored: boolean;
    observationId: string;
  }): Promise<{ body: Readable; contentLength: number }>;
}

const door = defineDoor<FrameDoor>("frames are not plugged in: import @meridian/domain/frames in a process that stores observation files");

export const readFramesWith = door.fill;

/** The frames' door; a process that stores files without having loaded frames (`@meridian/domain/frames`) fails loudly. */
export const frames = door.get;
