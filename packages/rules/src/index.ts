/**
 * What the SPA and the server must agree on, bundled by the browser as well: validation wording,
 * the short-name rule, how observatory permissions imply each other, how coordinates are read and
 * written. No Node, no database and no zod here: what needs zod or a parser has its own entry,
 * loaded only by the pages that use it (`@meridian/rules/events`: WebSocket event schemas;
 * `/observatory-protocol`: both directions of `/ws/observatory`; `/settings`: the server
 * settings' schemas; `/storage`: what a storage destination of each kind holds; `/cron`: schedules
 * read with cron-parser).
 */
export { fieldLabel, fieldMessage, issuePredicate, UNKNOWN_FIELD, type IssueDetails } from "./validation-messages";
export { SHORT_NAME_FORMAT, SHORT_NAME_MESSAGE, SHORT_NAME_PATTERN, SHORT_NAME_PREDICATE, shortNameProblem } from "./short-name";
export { closePermissions, observatoryPermissionKeys, type ObservatoryPermissionKey, type ObservatoryPermissions } from "./observatory-permissions";
export {
  activeStatuses,
  canMove,
  compareVersions,
  isFinalStatus,
  isMonitoringMove,
  notifiedStatuses,
  observationStatuses,
  observationTypes,
  pluginMayReport,
  pluginReportableStatuses,
  twilightKinds,
  twilightSunAltitude,
  type ObservationStatus,
  type Twilight,
} from "./observation-statuses";
export {
  DECLINATION_FORMAT,
  formatDeclination,
  formatDeclinationDegrees,
  formatRightAscension,
  formatRightAscensionDegrees,
  parseDeclination,
  parseGeographicDegrees,
  parseRightAscension,
  RIGHT_ASCENSION_FORMAT,
} from "./coordinates";
export { defaultObservatoryTiming, estimatedSeconds, formatDuration, observatoryTimingBounds, type ObservatoryTiming } from "./estimate";
export { canonicalTimeZone, isTimeZone, TIME_ZONE_PREDICATE, timeDisplayChoices, type TimeDisplay } from "./time-zones";
export { MAX_TRPC_BATCH } from "./request-limits";
export {
  FILTER_NAME_MAX_LENGTH,
  filtersAskedBy,
  filtersLacking,
  hasEveryFilter,
  MAX_REPORTED_FILTERS,
  reportedFilters,
  unavailableFilters,
  type ObservatoryFilters,
} from "./filters";
