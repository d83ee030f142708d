import { z } from "@hono/zod-openapi";
import { exportObservations, observationListQuerySchema, observationSchema, openObservationArchive } from "@meridian/domain/observations";
import { defineOperation, Reply } from "./define-operation";
import { contentDisposition } from "./observation-files";
import { authedErrors, idParam, problemResponseFor } from "./responses";
import { nodeStreamBody, textChunksBody } from "./streamed-body";

const tags = ["Observations"];

/** Observations taken away: the list's matches as a file, an observation's files as one ZIP (REST only: both are downloads). */
export const observationExportOperations = {
  exportObservations: defineOperation({
    operationId: "exportObservations",
    access: "signed-in",
    tags,
    summary: "Every observation the caller may read that matches the filters, as CSV or JSON, streamed",
    description:
      "The list's filters and sort (`q`, `status`, `from`, `to`, `ownerId`, `projectId`, `observatoryId`, `sort`), without paging: " +
      "every match, read from the database a batch at a time while it is sent. `format=csv` (the default): a header row, then a " +
      "record per observation (RFC 4180, CRLF line ends, UTF-8); `targets` holds the target names separated by `; `, and " +
      "`targetRaDegrees` and `targetDecDegrees` their J2000 coordinates in decimal degrees in the same order; beside `projectId`, " +
      "`observatoryId` and `ownerId` are `projectName`, `observatoryName` and `ownerName` (an extension; empty when it is gone). A text field " +
      "starting with =, +, -, @, a tab or a carriage return is prefixed with an apostrophe, so a spreadsheet shows it rather than " +
      "running it as a formula. `format=json`: a JSON array of `observation`. Sent as an attachment.",
    method: "get",
    path: "/observations/export",
    status: 200,
    query: observationListQuerySchema.extend({ format: z.enum(["csv", "json"]).optional().describe("Default `csv`") }),
    outputDescription: "The observations",
    responses: {
      ...authedErrors,
      200: { description: "The observations", content: { "text/csv": { schema: z.string() }, "application/json": { schema: z.array(observationSchema) } } },
    },
    trpc: false,
    handle: async ({ ctx, actor, input }) => {
      const format = input.format ?? "csv";
      const body = await textChunksBody(exportObservations({ deps: ctx.deps, actor, filter: input, format }));
      const day = ctx.deps.now().toISOString().slice(0, 10);
      return new Reply(200, body, {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": contentDisposition(`observations-${day}.${format}`),
        "cache-control": "private, no-store",
      });
    },
  }),
  filesArchive: defineOperation({
    operationId: "downloadObservationFiles",
    access: "signed-in",
    tags,
    summary: "All of an observation's files as one ZIP, streamed (its readers)",
    description:
      "Each file under its own name (a repeated name gets ` (2)` before its extension), stored uncompressed, fetched from object " +
      "storage only as the archive reaches it; ZIP64 past 4 GiB. Content-Length is the archive's exact size. Files whose bytes " +
      "storage no longer holds (marked `missing` in the file list) are left out and listed in a MISSING.txt inside the archive. " +
      "An observation without files gives an empty archive. A file that cannot be read while the archive is sent ends it early, " +
      "so the client sees it cut short rather than a damaged archive that looks whole.",
    method: "get",
    path: "/observations/{id}/files/archive",
    status: 200,
    params: z.object({ id: idParam }),
    outputDescription: "The ZIP",
    responses: {
      ...authedErrors,
      200: { description: "The ZIP", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
      503: problemResponseFor("Object storage did not say which files it holds (SERVICE_UNAVAILABLE)"),
    },
    trpc: false,
    handle: async ({ ctx, actor, input }) => {
      const archive = await openObservationArchive({ deps: ctx.deps, actor, observationId: input.id });
      return new Reply(200, nodeStreamBody(archive.body), {
        "content-type": "application/zip",
        ...(archive.size === undefined ? {} : { "content-length": String(archive.size) }),
        "content-disposition": contentDisposition(archive.filename),
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      });
    },
  }),
};
