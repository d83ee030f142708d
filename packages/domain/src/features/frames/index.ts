// The door of the feature frames: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
import { runAfterEveryMove } from "../observations";
import { judgeRepeat } from "./repeat-rejected";

// The door frames plug into: observations' moves. A move that ends an observation has its rejected exposures judged
// for a repeat in the same transaction. Declared here, where the feature's surface is, not as a side effect of a module.
runAfterEveryMove(judgeRepeat);
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
