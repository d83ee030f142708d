// The door of the feature frames: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { readFramesWith, runAfterEveryMove } from "../observations";
import { regradeFramesWith } from "../projects";
import { queuedFrame, queueFrameAnalysis } from "./analyse-frame";
import { startsAsFits } from "./fits-header";
import { regradeProjectFrames } from "./regrade-frames";
import { judgeRepeat } from "./repeat-rejected";
import { fitsWithSolution } from "./wcs-header";

// The doors of observations and projects frames plug into, declared here where the feature's surface is, not as a module's side
// effect. A move that ends an observation has its rejected exposures judged for a repeat in the same transaction; an
// uploaded FITS image starts as a queued frame, its analysis queued with the file's record; a solved frame is
// downloaded with its solution in the header. A project whose grading changes has its analysed frames graded again in
// the changing transaction.
runAfterEveryMove(judgeRepeat);
readFramesWith({
  frameOf: (firstBytes) => (startsAsFits(firstBytes) ? queuedFrame() : null),
  queueAnalysis: queueFrameAnalysis,
  withSolution: fitsWithSolution,
});
regradeFramesWith({ regrade: regradeProjectFrames });
export { analyseFrame, frameAnalysisForbiddenFlags } from "./analyse-frame";
export { analyseFileAgain } from "./analyse-again";
export { repeatAfterAnalysis } from "./repeat-rejected";
export { removeLeftoverWorkFolders } from "./work-folders";
export { searchFrames } from "./frame-search";
export { openFrameArchive } from "./frame-archive";
export { frameArchiveRequestSchema, framePageSchema, frameSearchFields, MAX_ARCHIVE_FRAMES, MAX_CONE_RADIUS_DEG } from "./frame-search-schemas";
export { readFitsImage } from "./fits-header";
export { queueAnalysisAgain } from "./analyse-again";
export { checkStarCatalog } from "./star-catalog-notice";
