import { z } from "@hono/zod-openapi";
import {
  cancelObservation,
  changeObservationStatus,
  createObservation,
  getObservation,
  listObservationHistory,
  listObservationsAsJson,
  listObservationsCached,
  MAX_UNFINISHED_OBSERVATIONS,
  OBSERVATION_HISTORY_PAGE,
  observationCancelSchema,
  observationCreateSchema,
  observationHistoryOrders,
  observationHistorySchema,
  observationListQuerySchema,
  observationPageSchema,
  observationSchema,
  observationStatusChangeSchema,
  observationUpdateSchema,
  reportObservationStatus,
  updateObservation,
} from "@meridian/domain/observations";
import { type Deps, type UserActor } from "@meridian/domain/platform";
import { pluginReportableStatuses } from "@meridian/rules";
import { defineOperation, Reply } from "./define-operation";
import { observationExportOperations } from "./observation-export";
import { observationFileOperations } from "./observation-files";
import { observationForecastOperations } from "./night-plan";
import { observationOperatingOperations } from "./observation-operating";
import { optionalJsonBody } from "./optional-body";
import { authedErrors, conflict, idParam, pageQuery, problemResponseFor } from "./responses";

const tags = ["Observations"];
const params = z.object({ id: idParam });
const listQuery = pageQuery.extend(observationListQuerySchema.shape);
const historyQuery = pageQuery.extend({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(OBSERVATION_HISTORY_PAGE)
    .optional()
    .describe(`Moves in one page: default ${OBSERVATION_HISTORY_PAGE}, at most ${OBSERVATION_HISTORY_PAGE}`),
  order: z.enum(observationHistoryOrders).optional().describe("`asc` (default): oldest first, as the contract orders it; `desc`: newest first (extension)"),
});
const listOptions = ({ deps, actor, input }: { deps: Deps; actor: UserActor; input: z.output<typeof listQuery> }) => ({
  deps,
  actor,
  filter: input,
  limit: input.limit ?? 50,
  cursor: input.cursor,
});
const transitionNote =
  "Allowed moves: pending → assigned, paused, cancelled; paused → pending, cancelled; assigned → in_progress, pending, failed, aborted, " +
  "cancelled; in_progress → acquisition_complete, suspended, failed, aborted, cancelled; suspended → in_progress, acquisition_complete, " +
  "partially_completed, failed, aborted, cancelled; acquisition_complete → completed, partially_completed, failed. Anything else: 409 " +
  "INVALID_TRANSITION. Of two concurrent moves of one observation the second sees the first's result. A monitoring observation that " +
  "ends completed or failed goes back to pending (both moves are recorded). One that ends completed or partially_completed with lines " +
  "short of accepted frames may be repeated (see the observation's `repeatOf` and `repeatId`): at once when all its frames are analysed " +
  "then (the answer names the repeat), else after the last analysis.";

/** Observations, their status moves, history and files (tRPC `observations.*`). */
export const observationOperations = {
  // Before `get`: /observations/export is not an observation's id.
  ...observationExportOperations,
  ...observationFileOperations,
  ...observationForecastOperations,
  ...observationOperatingOperations,
  create: defineOperation({
    operationId: "createObservation",
    access: "signed-in",
    tags,
    summary: "Submit an observation",
    description:
      "Needs can_observe on the observatory and membership of the project, which must be active (409 PROJECT_NOT_ACTIVE). " +
      "Give either observatoryId or candidateObservatoryIds (2 to 20 distinct ids; both or neither: 400 VALIDATION_FAILED): with " +
      "candidates, can_observe on each (403 FORBIDDEN; one the caller cannot view is 404 NOT_FOUND, as a single observatory is), and " +
      "`observatoryId` reads null until it is assigned. Until the network plan decides, a dispatch at each candidate may assign it, and " +
      "the first to take it does (never two); it is never assigned in the creation's own transaction. " +
      "Starts `pending`; dispatch considers it at once. When its observatory is free (connected, dispatch on, nothing waiting or " +
      "under way) and it may start now, it is assigned in the same transaction: the answer says `assigned`, its history holds both " +
      "moves and the observatory gets `assign` as the write commits. Otherwise the answer says `pending` and a dispatch follows. " +
      "`monitoring` (type monitoring only, else 400) sets how it repeats; its `until` " +
      "must lie ahead. `estimatedSeconds` in the answer (and in every read) uses the observatory's `settings` as they are at read time. " +
      `A project holds at most ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations (any status but completed, failed, cancelled, ` +
      "aborted and partially_completed): the next is 409 CONFLICT until one is cancelled or ends. " +
      "Every exposure's filter must be among the filters the observatory's plugin reported (`equipment.filters`, names compared " +
      "case-insensitively; an observatory that reported none takes any): else 400 FILTER_NOT_AVAILABLE with an error at each " +
      "`targets.N.exposures.M.filter` that names the observatory and the filters it has. ",
    method: "post",
    path: "/observations",
    status: 201,
    body: observationCreateSchema,
    output: observationSchema,
    outputDescription: "Created",
    responses: { ...authedErrors, 409: conflict(`PROJECT_NOT_ACTIVE; CONFLICT when the project holds ${MAX_UNFINISHED_OBSERVATIONS} unfinished observations`) },
    handle: ({ ctx, actor, input }) => createObservation({ deps: ctx.deps, actor, input }),
  }),
  listJson: defineOperation({
    operationId: "listObservations",
    access: "signed-in",
    tags,
    summary: "Observations the caller may read, filtered and sorted (newest first by default)",
    description:
      "The caller's own, those of projects they belong to and those of observatories they can view (any of an observation's " +
      "candidates); filters combine. `observatoryId` finds those that run there and those with it among their candidates. `q` finds a " +
      "part of the name or of any target's name, in any case; `status` takes several statuses separated by commas; `from` and `to` " +
      "bound createdAt (from inclusive, to exclusive). Pages follow the sort (ties by id the same way); a cursor belongs to the sort " +
      "it was given for, and another sort's cursor is refused (400 VALIDATION_FAILED). A first page (no cursor) may come from the " +
      "server's cache; any write to observations, their files (frames count in `progress`), memberships, projects or observatories " +
      "makes it stale in every process.",
    method: "get",
    path: "/observations",
    status: 200,
    query: listQuery,
    output: observationPageSchema,
    outputDescription: "A page of observations",
    responses: authedErrors,
    // REST sends a cached first page as serialized once; the tRPC face (`list`) returns the same page as an object.
    trpc: false,
    handle: async ({ ctx, actor, input }) =>
      new Reply(200, await listObservationsAsJson(listOptions({ deps: ctx.deps, actor, input })), { "content-type": "application/json" }),
  }),
  list: defineOperation({
    operationId: "listObservationsForApp",
    access: "signed-in",
    tags,
    summary: "Observations the caller may read (tRPC face of GET /observations)",
    method: "get",
    query: listQuery,
    trpcInputOptional: true,
    output: observationPageSchema,
    handle: ({ ctx, actor, input }) => listObservationsCached(listOptions({ deps: ctx.deps, actor, input })),
  }),
  get: defineOperation({
    operationId: "getObservation",
    access: "signed-in",
    tags,
    summary: "One observation (owner, project members, can_view on its observatory or any of its candidates)",
    method: "get",
    path: "/observations/{id}",
    status: 200,
    params,
    output: observationSchema,
    outputDescription: "The observation",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getObservation({ deps: ctx.deps, actor, observationId: input.id }),
  }),
  update: defineOperation({
    operationId: "updateObservation",
    access: "signed-in",
    tags,
    summary: "Change a waiting observation (owner or can_operate)",
    description:
      "Partial; only while pending or paused (409 INVALID_TRANSITION otherwise). `observatoryId` or `candidateObservatoryIds` (not both: " +
      "400) replace where it may run, whatever it named before, judged as a creation's (can_observe on each). can_operate counts at the " +
      "observatory it runs at: while one with candidates waits at none, only its owner may change, pause, resume or cancel it. " +
      "`monitoring` only with type monitoring (400); a type " +
      "changed away from monitoring drops the cadence; runs already made still count towards `maxRuns`. New `targets` are held to the " +
      "filters the observatory (or one of the candidates) reports now, as a submission is (400 FILTER_NOT_AVAILABLE at each exposure's " +
      "filter it lacks); an edit that leaves the targets is not refused for a filter the observatory stopped reporting since.",
    method: "put",
    path: "/observations/{id}",
    status: 200,
    params,
    body: observationUpdateSchema,
    bodyKey: "update",
    output: observationSchema,
    outputDescription: "Updated",
    responses: { ...authedErrors, 409: conflict("INVALID_TRANSITION") },
    handle: ({ ctx, actor, input }) => updateObservation({ deps: ctx.deps, actor, observationId: input.id, update: input.update }),
  }),
  cancel: defineOperation({
    operationId: "cancelObservation",
    access: "signed-in",
    tags,
    summary: "Cancel (owner or can_operate)",
    description: "Always yields `cancelled`; a running observation's observatory gets `cancel` over its connection. 409 INVALID_TRANSITION once it has ended.",
    method: "post",
    path: "/observations/{id}/cancel",
    status: 200,
    params,
    // The body is optional: a bare POST cancels without a reason.
    ...optionalJsonBody(observationCancelSchema),
    output: observationSchema,
    outputDescription: "Cancelled",
    responses: { ...authedErrors, 409: conflict("INVALID_TRANSITION") },
    handle: ({ ctx, actor, input }) => cancelObservation({ deps: ctx.deps, actor, observationId: input.id, reason: input.reason }),
  }),
  changeStatus: defineOperation({
    operationId: "changeObservationStatus",
    access: "observatory-or-user",
    tags,
    summary: "Move to another status (can_operate, or the observatory's own key)",
    description:
      `${transitionNote} The observatory's own key reports only the moves a plugin makes: to ${pluginReportableStatuses.join(", ")}; ` +
      "any other status from a key is refused with 403 FORBIDDEN_TRANSITION.",
    method: "post",
    path: "/observations/{id}/status",
    status: 200,
    params,
    body: observationStatusChangeSchema,
    output: observationSchema,
    outputDescription: "Moved",
    responses: {
      ...authedErrors,
      403: problemResponseFor("Not allowed (FORBIDDEN, CROSS_ORIGIN_REQUEST), or a status an observatory key may not report (FORBIDDEN_TRANSITION)"),
      409: conflict("INVALID_TRANSITION"),
    },
    handle: ({ ctx, actor, observatory, input }) =>
      actor
        ? changeObservationStatus({ deps: ctx.deps, actor, observationId: input.id, status: input.status, reason: input.reason })
        : reportObservationStatus({
            deps: ctx.deps,
            observatoryId: observatory!.observatoryId,
            observationId: input.id,
            status: input.status,
            reason: input.reason,
          }),
  }),
  history: defineOperation({
    operationId: "listObservationHistory",
    access: "signed-in",
    tags,
    summary: "Every status move, oldest first, in cursor pages",
    description:
      "Readable by whoever may read the observation (its owner, its project's members, its observatory's viewers; 404 NOT_FOUND " +
      "to anyone else). Oldest first, as the contract orders it, by the moment each move was recorded; `nextCursor` is set while " +
      "more remain: pass it as `cursor` for the next page, until it is null. Nothing is left out: a history longer than a page is " +
      `walked page by page. \`limit\` defaults to ${OBSERVATION_HISTORY_PAGE} and is at most ${OBSERVATION_HISTORY_PAGE}, more than ` +
      "the contract's usual 50 (at most 200): the list came whole before it was paged, and an ordinary observation's moves still " +
      "do, in one answer to a client that reads only `items`; a long-lived monitoring observation, which moves every cadence for " +
      "months, takes several pages. `order=desc` (extension) gives the newest first instead, for a client that shows the latest " +
      "moves first; a cursor is kept to the order that gave it (another order's, or any cursor no page gave, is 400 " +
      "VALIDATION_FAILED on `cursor`). Each entry carries its `id` (extension).",
    method: "get",
    path: "/observations/{id}/history",
    status: 200,
    params,
    query: historyQuery,
    output: observationHistorySchema,
    outputDescription: "A page of the history",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      listObservationHistory({
        deps: ctx.deps,
        actor,
        observationId: input.id,
        limit: input.limit ?? OBSERVATION_HISTORY_PAGE,
        cursor: input.cursor,
        order: input.order,
      }),
  }),
};
