import type { RouterOutputs } from "../organizations/types";

/** A file as the API reads it. */
type File = RouterOutputs["observations"]["files"]["items"][number];
export type FrameAnalysisView = NonNullable<File["frame"]>;

/**
 * A frame the search found: a file with its analysis, and (where the search answers them) its
 * observatory and the id of its preview.
 */
export type FoundFrame = File & { frame: FrameAnalysisView; observatoryId?: string; previewId?: string | null };
