// The door of the feature targets: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export {
  resolveTarget,
  searchTargets,
  targetMatchSchema,
  targetResolveQuerySchema,
  targetSearchQuerySchema,
  targetSearchResultSchema,
  type TargetMatch,
} from "./targets";
