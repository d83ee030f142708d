import { z } from "@hono/zod-openapi";
import { deleteAllocation, getProjectUsage, listAllocations, putAllocation } from "@meridian/domain/allocations";
import { isoDateInput } from "@meridian/rules/fields";
import { defineOperation } from "./define-operation";
import { authedErrors, idParam } from "./responses";

const instant = isoDateInput.describe("ISO 8601");
const allocationParams = z.object({ id: idParam, projectId: idParam });

const allocationInputSchema = z
  .strictObject({
    hours: z.number().positive().max(100_000).describe("Observing hours granted for the period"),
    periodStart: instant.optional().describe("Default: now"),
    periodEnd: instant.optional().describe("Default: six months after the period's start"),
  })
  .meta({ id: "AllocationInput" });

const allocationSchema = z.object({ projectId: z.string(), hours: z.number(), periodStart: z.string(), periodEnd: z.string() }).meta({ id: "Allocation" });

const allocationUsageSchema = allocationSchema
  .extend({
    projectName: z.string().nullable().describe("Null when the project was deleted"),
    usedHours: z.number().describe("Charged within the period, to two decimals"),
  })
  .meta({ id: "AllocationWithUsage" });

const projectUsageSchema = z
  .object({
    items: z.array(
      z.object({
        observatoryId: z.string(),
        observatoryName: z.string(),
        allocatedHours: z.number().nullable().describe("Null: unlimited (no allocation)"),
        usedHours: z.number().describe("Within the allocation's period; since the start without one"),
        pendingHours: z.number().describe("The estimates of its pending and paused observations there"),
        periodStart: z.string().nullable().describe("extension"),
        periodEnd: z.string().nullable().describe("extension"),
      }),
    ),
  })
  .meta({ id: "ProjectUsage" });

const charging =
  "Used time is charged per observation from its move to in_progress to the move that ends its execution (acquisition_complete, " +
  "failed, aborted, cancelled), clipped to the period; a run under way counts up to now. Outside its period a project with an " +
  "allocation has no time there (queue code ALLOCATION_EXHAUSTED, with `until` the period's start when it is still to come).";

/** Observing time granted to projects per observatory, and a project's usage (tRPC `observatories.*` and `projects.usage`). */
export const allocationOperations = {
  allocations: defineOperation({
    operationId: "listObservatoryAllocations",
    access: "signed-in",
    tags: ["Observatories"],
    summary: "Projects' allocations here, with the hours each used in its period (can_view)",
    description: charging,
    method: "get",
    path: "/observatories/{id}/allocations",
    status: 200,
    params: z.object({ id: idParam }),
    output: z.object({ items: z.array(allocationUsageSchema) }),
    outputDescription: "The allocations, by project name",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => listAllocations({ deps: ctx.deps, actor, observatoryId: input.id }),
  }),
  putAllocation: defineOperation({
    operationId: "putObservatoryAllocation",
    access: "signed-in",
    tags: ["Observatories"],
    summary: "Grant or change a project's observing time here (can_admin)",
    description:
      "Replaces the project's allocation at this observatory. Recorded in the observatory's history (allocation_set) and its audit log. " +
      "Dispatch skips an observation whose estimate would take its project past what is left. " +
      "The project must be one the caller can see or one with observations at this observatory; any other answers 404 NOT_FOUND, " +
      "as one that does not exist (the allocation list names the project to the observatory's viewers). " +
      charging,
    method: "put",
    path: "/observatories/{id}/allocations/{projectId}",
    status: 200,
    params: allocationParams,
    body: allocationInputSchema,
    output: allocationSchema,
    outputDescription: "The allocation",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) =>
      putAllocation({
        deps: ctx.deps,
        actor,
        observatoryId: input.id,
        projectId: input.projectId,
        input: { hours: input.hours, periodStart: input.periodStart, periodEnd: input.periodEnd },
      }),
  }),
  deleteAllocation: defineOperation({
    operationId: "deleteObservatoryAllocation",
    access: "signed-in",
    tags: ["Observatories"],
    summary: "Remove a project's allocation: it is unlimited here again (can_admin)",
    description: "404 when the project has no allocation here. Recorded in the observatory's history (allocation_removed) and its audit log.",
    method: "delete",
    path: "/observatories/{id}/allocations/{projectId}",
    status: 204,
    params: allocationParams,
    outputDescription: "Removed",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => deleteAllocation({ deps: ctx.deps, actor, observatoryId: input.id, projectId: input.projectId }),
  }),
};

export const projectUsageOperations = {
  usage: defineOperation({
    operationId: "getProjectUsage",
    access: "signed-in",
    tags: ["Projects"],
    summary: "The project's observing time at each observatory: allocated, used and pending (project members)",
    description: `Every observatory where the project has observations or an allocation. ${charging}`,
    method: "get",
    path: "/projects/{id}/usage",
    status: 200,
    params: z.object({ id: idParam }),
    output: projectUsageSchema,
    outputDescription: "Usage per observatory",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => getProjectUsage({ deps: ctx.deps, actor, projectId: input.id }),
  }),
};
