/**
 * Rules the SPA checks as the user types, with the API's own wording. Nothing here may import
 * zod, the database or Node: the browser bundles this module (through `@meridian/api/rules`).
 */
export { fieldLabel, fieldMessage, humanizeKey, issuePredicate, type IssueDetails } from "./validation/messages";
export { SHORT_NAME_FORMAT, SHORT_NAME_MESSAGE, SHORT_NAME_PATTERN, SHORT_NAME_PREDICATE, shortNameProblem } from "./organizations/short-name-rule";
