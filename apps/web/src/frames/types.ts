import type { RouterOutputs } from "../organizations/types";

/** A file the frame search answers: a file of an observation, with its analysis. */
type SearchedFile = RouterOutputs["frames"]["search"]["items"][number];
export type FrameAnalysisView = NonNullable<SearchedFile["frame"]>;

/**
 * A frame the search found, its analysis there; the search does not say its observatory nor its
 * preview, which the page finds through its observation (`useFrameSurroundings`) unless given here.
 */
export type FoundFrame = SearchedFile & { frame: FrameAnalysisView; observatoryId?: string; previewId?: string | null };
