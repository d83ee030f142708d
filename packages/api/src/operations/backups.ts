import { z } from "@hono/zod-openapi";
import {
  backupCleanupInputSchema,
  backupCleanupResultSchema,
  backupSchema,
  backupSummarySchema,
  cleanUpBackups,
  getBackup,
  listBackups,
  startBackup,
  startBackupVerification,
  startRestore,
} from "@meridian/domain/backups";
import { maintenanceStatusSchema, readMaintenance } from "@meridian/domain/system";
import { defineOperation } from "./define-operation";
import { optionalJsonBody } from "./optional-body";
import { conflict, errorResponses, idParam, problemResponseFor } from "./responses";

const tags = ["Administration"];
const adminErrors = { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") };
const params = z.object({ id: idParam });
const notFound = { 404: problemResponseFor("No such backup (NOT_FOUND)") };
const jobStarted = z.object({ jobId: z.string() });

/** Backups, their verification and restore, and retention (tRPC `backups.*`). */
export const backupOperations = {
  create: defineOperation({
    operationId: "createBackup",
    access: "server-admin",
    tags,
    summary: "Back up every collection (a job with progress)",
    description:
      "One consistent snapshot of every collection, streamed with COPY into a brotli-compressed archive in object storage with a manifest beside it " +
      "(per-collection rows and SHA-256, schema and server versions, snapshot time). The record goes running → completed → verified " +
      "(read back and checked). Uploaded image files are not in it; their file records are. One at a time: 409 BACKUP_RUNNING; " +
      "not while a restore is queued or running: 409 RESTORE_RUNNING.",
    method: "post",
    path: "/api/v1/admin/backups",
    status: 202,
    ...optionalJsonBody(z.strictObject({}).meta({ id: "BackupCreate" })),
    output: backupSchema,
    outputDescription: "Started: timestamp, status and (when finished) size",
    responses: { ...adminErrors, 409: conflict("BACKUP_RUNNING, RESTORE_RUNNING") },
    handle: ({ ctx, actor }) => startBackup({ deps: ctx.deps, actor, trigger: "manual" }),
  }),
  list: defineOperation({
    operationId: "listBackups",
    access: "server-admin",
    tags,
    summary: "Every backup, newest first: timestamp, size and status",
    method: "get",
    path: "/api/v1/admin/backups",
    status: 200,
    output: z.object({ items: z.array(backupSummarySchema) }),
    outputDescription: "Backups",
    responses: adminErrors,
    handle: async ({ ctx }) => ({ items: (await listBackups({ deps: ctx.deps })).items.map(({ manifest: _manifest, ...summary }) => summary) }),
  }),
  get: defineOperation({
    operationId: "getBackup",
    access: "server-admin",
    tags,
    summary: "One backup with its manifest",
    method: "get",
    path: "/api/v1/admin/backups/{id}",
    status: 200,
    params,
    output: backupSchema,
    outputDescription: "The backup",
    responses: { ...adminErrors, ...notFound },
    handle: ({ ctx, input }) => getBackup({ deps: ctx.deps, backupId: input.id }),
  }),
  verify: defineOperation({
    operationId: "verifyBackup",
    access: "server-admin",
    tags,
    summary: "Read a backup back against its manifest (a job)",
    description:
      "Verified when the stored manifest, the archive's size and SHA-256 and every collection's rows and SHA-256 match; " +
      "failed, naming what differs, otherwise.",
    method: "post",
    path: "/api/v1/admin/backups/{id}/verify",
    status: 202,
    params,
    output: jobStarted,
    outputDescription: "The verification job",
    responses: { ...adminErrors, ...notFound, 409: conflict("BACKUP_NOT_READY") },
    handle: ({ ctx, actor, input }) => startBackupVerification({ deps: ctx.deps, actor, backupId: input.id }),
  }),
  restore: defineOperation({
    operationId: "restoreBackup",
    access: "server-admin",
    tags,
    summary: "Replace all current data with a backup's (a job), all or nothing",
    description:
      "The archive is verified while it loads into a side schema, then swapped in with one transaction; a backup that does not match its manifest " +
      "changes nothing. Writes answer 503 MAINTENANCE meanwhile. Backup records and jobs are not rolled back; sessions and API keys follow the " +
      "backup, except that a credential revoked or deleted since stays so (a password changed since stays changed, an account disabled since " +
      "stays disabled, a role removed since stays removed), and a restore whose accounts would hold no enabled server admin brings today's " +
      "enabled server admins through as they are now. Every process drops its caches, and a quick integrity scan follows. " +
      "409 BACKUP_NOT_READY (not finished), BACKUP_TOO_NEW (newer schema), RESTORE_RUNNING, CLEANUP_RUNNING (an observation cleanup " +
      "is queued or running), BACKUP_RUNNING (a backup is archiving).",
    method: "post",
    path: "/api/v1/admin/backups/{id}/restore",
    status: 202,
    params,
    output: jobStarted,
    outputDescription: "The restore job",
    responses: { ...adminErrors, ...notFound, 409: conflict("BACKUP_NOT_READY, BACKUP_TOO_NEW, RESTORE_RUNNING, CLEANUP_RUNNING, BACKUP_RUNNING") },
    handle: ({ ctx, actor, input }) => startRestore({ deps: ctx.deps, actor, backupId: input.id }),
  }),
  cleanup: defineOperation({
    operationId: "cleanUpBackups",
    access: "server-admin",
    tags,
    summary: "Delete backups older than the days given",
    description:
      "Never the newest verified backup, never a running one, and at least `keepMin` of the newest usable ones stay. Objects are deleted in " +
      "batches of at most 1,000 keys, then the records. `dryRun: true` (extension) lists what would go.",
    method: "post",
    path: "/api/v1/admin/backups/cleanup",
    status: 200,
    body: backupCleanupInputSchema,
    output: backupCleanupResultSchema,
    outputDescription: "What was (or would be) deleted",
    responses: adminErrors,
    handle: ({ ctx, actor, input }) => cleanUpBackups({ deps: ctx.deps, actor, input }),
  }),
};

/** Whether a restore is running (extension): the SPA shows a maintenance notice from it. Public: signed-out pages show it too. */
export const maintenanceOperations = {
  status: defineOperation({
    operationId: "getMaintenanceStatus",
    access: "public",
    tags: ["Health"],
    summary: "Whether the server is under maintenance (a restore running)",
    description: "While `active`, every write answers 503 MAINTENANCE with Retry-After.",
    method: "get",
    path: "/api/v1/maintenance",
    status: 200,
    output: maintenanceStatusSchema,
    outputDescription: "Maintenance status",
    responses: { 400: problemResponseFor("The URL holds a NUL character (VALIDATION_FAILED)") },
    handle: ({ ctx }) => readMaintenance({ db: ctx.deps.db, caches: ctx.deps.caches }),
  }),
};
