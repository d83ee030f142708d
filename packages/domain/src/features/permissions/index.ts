// The door of the feature permissions: what other rooms and packages may import.
import "../../platform/validation/zod-error-map";
export * from "./observatory-permissions";
export { hasAnyObservatoryGrant } from "./grant-predicates";
export { isOrganizationAdminMembership } from "./grant-predicates";
export { isOrganizationAdmin } from "./grant-predicates";
