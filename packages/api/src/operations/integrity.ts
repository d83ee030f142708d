import { z } from "@hono/zod-openapi";
import {
  exportIntegrityIssues,
  getIntegrityScan,
  integrityIssueFilterSchema,
  integrityIssuePageSchema,
  integrityIssueSchema,
  integrityScanSchema,
  integrityScanStartSchema,
  listIntegrityIssues,
  listIntegrityScans,
  listScannableCollections,
  presentScan,
  repairIntegrityIssue,
  startBulkRepair,
  startIntegrityScan,
} from "@meridian/domain/integrity";
import { defineOperation, Reply } from "./define-operation";
import { optionalJsonBody } from "./optional-body";
import { conflict, errorResponses, idParam, pageQuery, problemResponseFor } from "./responses";
import { textChunksBody } from "./streamed-body";

const tags = ["Administration"];
const adminErrors = { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") };
const params = z.object({ id: idParam });

/** Integrity scans and their issues (tRPC `integrity.*`). */
export const integrityOperations = {
  startScan: defineOperation({
    operationId: "startIntegrityScan",
    access: "server-admin",
    tags,
    summary: "Start a quick or full integrity scan (a job with progress)",
    description:
      "quick: observations and projects, 100 documents each. full: every collection, no limit. Options (default off): `deepScan` " +
      "(references across collections), `checkStorage`, `checkHealth`, `includeTestData`; `collections` and `limitPerCollection` " +
      "override the kind's. One scan of a kind at a time: 409 SCAN_RUNNING names the running one. " +
      "With `checkStorage`, a store that answers 501 NotImplemented to a call one part of the check needs (ListMultipartUploads for " +
      "abandoned multipart uploads, ListParts for their size) leaves that part out and the scan completes: an info issue " +
      "`STORAGE_CHECK_PARTIAL` (type `file`, collection `storage`, documentId the call refused) says so (extension).",
    method: "post",
    path: "/api/v1/admin/integrity/scans",
    status: 202,
    body: integrityScanStartSchema,
    output: integrityScanSchema,
    outputDescription: "Queued",
    responses: { ...adminErrors, 409: conflict("SCAN_RUNNING") },
    handle: async ({ ctx, actor, input }) => {
      const { kind, ...options } = input;
      return presentScan(await startIntegrityScan({ deps: ctx.deps, actor, kind, input: options }));
    },
  }),
  collections: defineOperation({
    operationId: "listScannableCollections",
    access: "server-admin",
    tags,
    summary: "The collections a scan can look at, with their sizes",
    description:
      "Small tables (up to 8 MiB) and tables without planner statistics are counted (`exact: true`); larger ones give the planner's " +
      "estimate scaled to the table's current size, which lags a little behind recent writes.",
    method: "get",
    path: "/api/v1/admin/integrity/collections",
    status: 200,
    output: z.object({
      items: z.array(
        z.object({
          name: z.string(),
          estimatedDocuments: z.number().int(),
          exact: z.boolean().describe("Whether estimatedDocuments is a count rather than an estimate (extension)"),
        }),
      ),
    }),
    outputDescription: "Collections",
    responses: adminErrors,
    handle: ({ ctx }) => listScannableCollections(ctx.deps),
  }),
  scans: defineOperation({
    operationId: "listIntegrityScans",
    access: "server-admin",
    tags,
    summary: "Recent scans, newest first",
    method: "get",
    path: "/api/v1/admin/integrity/scans",
    status: 200,
    query: pageQuery,
    trpcInputOptional: true,
    output: z.object({ items: z.array(integrityScanSchema), nextCursor: z.string().nullable() }),
    outputDescription: "Scans",
    responses: adminErrors,
    handle: ({ ctx, input }) => listIntegrityScans({ deps: ctx.deps, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  scan: defineOperation({
    operationId: "getIntegrityScan",
    access: "server-admin",
    tags,
    summary: "One scan: options, status, progress and summary",
    method: "get",
    path: "/api/v1/admin/integrity/scans/{id}",
    status: 200,
    params,
    output: integrityScanSchema,
    outputDescription: "The scan",
    responses: { ...adminErrors, 404: problemResponseFor("No such scan (NOT_FOUND)") },
    handle: ({ ctx, input }) => getIntegrityScan({ deps: ctx.deps, scanId: input.id }),
  }),
  exportIssues: defineOperation({
    operationId: "exportIntegrityIssues",
    access: "server-admin",
    tags,
    summary: "A scan's issues as CSV or JSON, streamed",
    description: "The same filters as the issue list; `format=csv` (default) or `json` (an array). Sent as an attachment.",
    method: "get",
    path: "/api/v1/admin/integrity/scans/{id}/issues/export",
    status: 200,
    params,
    query: integrityIssueFilterSchema.extend({ format: z.enum(["csv", "json"]).default("csv").optional() }),
    outputDescription: "The issues",
    responses: {
      ...adminErrors,
      200: { description: "The issues", content: { "text/csv": { schema: z.string() }, "application/json": { schema: z.array(integrityIssueSchema) } } },
      404: problemResponseFor("No such scan (NOT_FOUND)"),
    },
    trpc: false,
    handle: async ({ ctx, input }) => {
      const format = input.format ?? "csv";
      // An unknown scan is a 404 before any byte is sent: textChunksBody awaits the first chunk.
      const body = await textChunksBody(
        exportIntegrityIssues({
          deps: ctx.deps,
          scanId: input.id,
          filter: { severity: input.severity, type: input.type, collection: input.collection, autoFixable: input.autoFixable },
          format,
        }),
      );
      return new Reply(200, body, {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="integrity-${input.id}.${format}"`,
      });
    },
  }),
  issues: defineOperation({
    operationId: "listIntegrityIssues",
    access: "server-admin",
    tags,
    summary: "A scan's issues, filtered, with counts per value",
    description:
      "Most severe first: critical, then warning, then info, each in id order; pages go on in that order. Filters combine; `counts` " +
      "gives, over the whole scan, the issues per severity, type, collection and autoFixable.",
    method: "get",
    path: "/api/v1/admin/integrity/scans/{id}/issues",
    status: 200,
    params,
    query: pageQuery.extend(integrityIssueFilterSchema.shape),
    output: integrityIssuePageSchema,
    outputDescription: "Issues",
    responses: { ...adminErrors, 404: problemResponseFor("No such scan (NOT_FOUND)") },
    handle: ({ ctx, input }) =>
      listIntegrityIssues({
        deps: ctx.deps,
        scanId: input.id,
        filter: { severity: input.severity, type: input.type, collection: input.collection, autoFixable: input.autoFixable },
        limit: input.limit ?? 50,
        cursor: input.cursor,
      }),
  }),
  repairIssue: defineOperation({
    operationId: "repairIntegrityIssue",
    access: "server-admin",
    tags,
    summary: "Repair one issue as its `fix` says",
    description:
      "Applies the issue's `fix` through the same domain rules as the API (the transition table, the file records), writes it to the audit log " +
      "and verifies it by re-running the check on the document; a repair the check still finds is rolled back (409 CONFLICT). " +
      "409 DOCUMENT_CHANGED when the document changed since the scan (scan again); 409 NOT_AUTO_FIXABLE for an issue that needs a person. " +
      "Repairing a repaired issue answers it as it is.",
    method: "post",
    path: "/api/v1/admin/integrity/issues/{issueId}/repair",
    status: 200,
    params: z.object({ issueId: idParam }),
    output: integrityIssueSchema,
    outputDescription: "The issue, `status: repaired`, with what the repair did",
    responses: { ...adminErrors, 404: problemResponseFor("No such issue (NOT_FOUND)"), 409: conflict("DOCUMENT_CHANGED, NOT_AUTO_FIXABLE, CONFLICT") },
    handle: ({ ctx, actor, input }) => repairIntegrityIssue({ deps: ctx.deps, actor, issueId: input.issueId }),
  }),
  bulkRepair: defineOperation({
    operationId: "repairIntegrityIssues",
    access: "server-admin",
    tags,
    summary: "Repair every auto-fixable issue of a scan, or the ones named, as a job",
    description:
      "A job with progress (`GET /api/v1/admin/jobs/{jobId}`, `job.progress` over /ws). Each issue is repaired as the single repair does; " +
      "one whose document changed since the scan is skipped and listed in the job's `result`. 409 REPAIR_RUNNING while one runs for the scan, " +
      "409 CONFLICT before the scan has finished. A scan under a queued or running repair is never pruned (prune_integrity_scans); " +
      "one that a prune was removing when the repair was asked for is 404 NOT_FOUND, and no repair is queued.",
    method: "post",
    path: "/api/v1/admin/integrity/scans/{id}/repair",
    status: 202,
    params,
    ...optionalJsonBody(z.strictObject({ issueIds: z.array(idParam).max(10_000).optional() }).meta({ id: "IntegrityBulkRepair" })),
    output: z.object({ jobId: z.string() }),
    outputDescription: "Queued",
    responses: { ...adminErrors, 404: problemResponseFor("No such scan (NOT_FOUND)"), 409: conflict("REPAIR_RUNNING, CONFLICT") },
    handle: ({ ctx, actor, input }) => startBulkRepair({ deps: ctx.deps, actor, scanId: input.id, issueIds: input.issueIds }),
  }),
};
