// The door of the feature targets: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export {
  resolveTarget,
  searchTargets,
  targetMatchSchema,
  targetResolveQuerySchema,
  targetSearchQuerySchema,
  targetSearchResultSchema,
  TARGET_QUERY_MAX,
  TARGET_SEARCH_LIMIT,
  type TargetMatch,
} from "./targets";
export { targetCatalogs, targetKinds, type TargetCatalog, type TargetKind } from "./catalog-format";
