// The door of the feature frames: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export { analyseFrame, frameAnalysisForbiddenFlags } from "./analyse-frame";
export { analyseFileAgain } from "./analyse-again";
export { repeatAfterAnalysis } from "./repeat-rejected";
export { removeLeftoverWorkFolders } from "./work-folders";
export { searchFrames } from "./frame-search";
export { openFrameArchive } from "./frame-archive";
export {
  frameArchiveRequestSchema,
  framePageSchema,
  frameSearchFields,
  MAX_ARCHIVE_FRAMES,
  MAX_CONE_RADIUS_DEG,
  type FrameSearchFilter,
} from "./frame-search-schemas";
export { readFitsImage } from "./fits-header";
