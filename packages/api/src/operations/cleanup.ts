import { z } from "@hono/zod-openapi";
import { observationCleanupInputSchema, observationCleanupSummarySchema, previewObservationCleanup, startObservationCleanup } from "@meridian/domain/cleanup";
import { jsonResponse } from "../http/openapi-shared";
import { defineOperation, Reply } from "./define-operation";
import { conflict, errorResponses, problemResponseFor } from "./responses";

/** Destructive cleanups (tRPC `cleanup.*`). */
export const cleanupOperations = {
  observations: defineOperation({
    operationId: "cleanUpObservations",
    access: "server-admin",
    tags: ["Administration"],
    summary: "Delete every observation, file record and stored image (dry run first)",
    description:
      "`dryRun: true` answers 200 with what would go. `dryRun: false` starts a job (202 `{jobId}`) that deletes the observations existing at its start, " +
      "with their histories, file records and objects (each batch's records, then their objects, so a stopped run leaves no record without its " +
      "object and its retry finishes it); its `result` holds the summary and `backupId`. Observatories, users, projects, API keys and sessions " +
      "stay. One at a time: 409 CLEANUP_RUNNING; not while a restore is queued or running: 409 RESTORE_RUNNING. " +
      "`createBackup: true` takes a backup first (409 BACKUP_RUNNING while another runs); the cleanup starts only once it is verified, and a " +
      "failed backup fails the cleanup with nothing deleted.",
    method: "post",
    path: "/api/v1/admin/cleanup/observations",
    status: 200,
    body: observationCleanupInputSchema,
    output: observationCleanupSummarySchema,
    outputDescription: "The dry run's summary",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("Server administrators only (FORBIDDEN)"),
      202: jsonResponse(z.object({ jobId: z.string() }), "The cleanup started"),
      409: conflict("CLEANUP_RUNNING, RESTORE_RUNNING, BACKUP_RUNNING"),
    },
    handle: async ({ ctx, actor, input }) => {
      if (input.dryRun) return previewObservationCleanup(ctx.deps);
      const { jobId } = await startObservationCleanup({ deps: ctx.deps, actor, createBackup: input.createBackup });
      return new Reply(202, { jobId });
    },
  }),
};
