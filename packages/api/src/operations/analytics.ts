import { analyticsSchema, readAnalytics } from "@meridian/domain/analytics";
import { defineOperation } from "./define-operation";
import { authedErrors, errorResponses, problemResponseFor } from "./responses";

const tags = ["Administration"];
const description =
  "Read from a summary refreshed every minute (the `refresh_analytics` job), so figures are exact after at most a minute and no request counts a table. " +
  "`successRate` = completed / (completed + failed + aborted + partially completed). " +
  "Frames (extension): over the same 30 days, by the frame's `analysedAt`, the frames analysed and failed, the share of the analysed " +
  "graded `accepted`, and per observatory (the observation's) the same with the median FWHM of its analysed frames; a frame analysed " +
  "again counts once, at its last analysis.";

/** System analytics for server admins, and the same figures scoped to an owner's or admin's observatories (tRPC `analytics.*`). */
export const analyticsOperations = {
  system: defineOperation({
    operationId: "getSystemAnalytics",
    access: "server-admin",
    tags,
    summary: "System analytics (server admins)",
    description,
    method: "get",
    path: "/api/v1/admin/analytics",
    status: 200,
    output: analyticsSchema,
    outputDescription: "Every observatory's figures",
    responses: { 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    handle: ({ ctx }) => readAnalytics({ deps: ctx.deps, scope: "system" }),
  }),
  mine: defineOperation({
    operationId: "getMyObservatoryAnalytics",
    access: "signed-in",
    tags: ["User"],
    summary: "The same figures for the observatories the caller owns or administers",
    description: `${description} Extension (spec: owners and admins see a dashboard scoped to their observatories). A caller who administers none gets zeros.`,
    method: "get",
    path: "/api/v1/user/analytics",
    status: 200,
    output: analyticsSchema,
    outputDescription: "The caller's observatories' figures",
    responses: authedErrors,
    handle: ({ ctx, actor }) => readAnalytics({ deps: ctx.deps, actor, scope: "observatories" }),
  }),
};
