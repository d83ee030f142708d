/**
 * What the SPA and the server must agree on, bundled by the browser as well: validation wording,
 * the short-name rule, how observatory permissions imply each other. No Node, no database and no
 * zod here (the WebSocket event schemas, which need zod, are `@meridian/rules/events`).
 */
export { fieldLabel, fieldMessage, humanizeKey, issuePredicate, UNKNOWN_FIELD, type IssueDetails } from "./validation-messages";
export { SHORT_NAME_FORMAT, SHORT_NAME_MESSAGE, SHORT_NAME_PATTERN, SHORT_NAME_PREDICATE, shortNameProblem } from "./short-name";
export { closePermissions, observatoryPermissionKeys, type ObservatoryPermissionKey, type ObservatoryPermissions } from "./observatory-permissions";
export {
  activeStatuses,
  canMove,
  compareVersions,
  isFinalStatus,
  notifiedStatuses,
  observationStatuses,
  observationTransitions,
  observationTypes,
  pluginMayReport,
  pluginReportableStatuses,
  twilightKinds,
  twilightSunAltitude,
  type ObservationStatus,
  type Twilight,
} from "./observation-statuses";
