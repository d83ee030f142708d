import type { FrameGrading } from "@meridian/rules/frames";
import { defineDoor } from "../../platform/door";
import type { InTransaction } from "../../platform/transaction";

/**
 * What a project asks of frames when its grading changes: frames, which build on observations and so on projects, plug
 * it in from their own index.ts (`regradeFramesWith`), so that projects import no feature that reads them back.
 */
export interface ProjectFramesDoor {
  /** Grades the project's analysed frames again under `grading`, in the transaction that changed it; how many changed. */
  regrade(options: { t: Pick<InTransaction, "tx">; projectId: string; grading: FrameGrading }): Promise<number>;
}

const door = defineDoor<ProjectFramesDoor>("frames are not plugged in: import @meridian/domain/frames in a process that changes projects");

export const regradeFramesWith = door.fill;

/** The frames' door; a process that changes a project's grading without having loaded frames fails loudly. */
export const projectFrames = door.get;
