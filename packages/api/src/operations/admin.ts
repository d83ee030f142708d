import { z } from "@hono/zod-openapi";
import {
  adminUserListQuerySchema,
  adminUserListSchema,
  adminUserSchema,
  adminUserUpdateSchema,
  listUsersForAdmin,
  updateUserByAdmin,
} from "@meridian/domain/accounts";
import { listAuditLog } from "@meridian/domain/audit";
import { cancelJob, getJob, jobListQuerySchema, jobListSchema, jobViewSchema, listJobs } from "@meridian/domain/platform";
import { readServerSettings, serverSettingsSchema, serverSettingsUpdateSchema, updateServerSettings } from "@meridian/domain/system";
import { opaqueIdSchema } from "@meridian/domain/users";
import { isoDateInput } from "@meridian/rules/fields";
import { auditPageSchema } from "../http/audit-schema";
import { defineOperation } from "./define-operation";
import { authedErrors, errorResponses, idParam, pageQuery, problemResponseFor } from "./responses";

const tags = ["Administration"];

/** Server administration (tRPC `admin.*`): accounts, the audit log and long jobs. */
export const adminOperations = {
  settings: defineOperation({
    operationId: "getServerSettings",
    access: "server-admin",
    tags,
    summary: "Server settings (server admins)",
    description: "Minimum plugin version (null: none), stale thresholds, heartbeat timeout, scan and backup schedules and retention.",
    method: "get",
    path: "/api/v1/admin/settings",
    status: 200,
    output: serverSettingsSchema,
    outputDescription: "Settings",
    responses: { 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    handle: ({ ctx }) => readServerSettings(ctx.deps.db),
  }),
  updateSettings: defineOperation({
    operationId: "updateServerSettings",
    access: "server-admin",
    tags,
    summary: "Change server settings (server admins); partial",
    description: "Absent fields keep their value; `minimumPluginVersion: null` clears it. Versions compare numerically part by part (3.10.0.0 > 3.8.0.0).",
    method: "put",
    path: "/api/v1/admin/settings",
    status: 200,
    body: serverSettingsUpdateSchema,
    bodyKey: "update",
    output: serverSettingsSchema,
    outputDescription: "Settings after the change",
    responses: { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    handle: ({ ctx, actor, input }) => updateServerSettings({ deps: ctx.deps, actor, update: input.update }),
  }),
  users: defineOperation({
    operationId: "listUsersForAdmin",
    access: "server-admin",
    tags,
    summary: "Every account (server admins)",
    description:
      "Oldest first; `q` matches part of the email or name, case-insensitively. Cursor paging. " +
      "Extension to docs/api-contract.md: `role=serverAdmin` keeps the accounts that hold the role (enabled or not), and `status` keeps those " +
      "that can sign in (`active`) or are disabled (`disabled`); they combine with each other and with `q`, and a cursor stays valid with them. " +
      "Any other value is 400 VALIDATION_FAILED naming the field. `enabledServerAdmins` counts the whole server whatever the filters.",
    method: "get",
    path: "/api/v1/admin/users",
    status: 200,
    query: adminUserListQuerySchema,
    trpcInputOptional: true,
    output: adminUserListSchema,
    outputDescription: "Accounts",
    responses: { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    handle: ({ ctx, input }) =>
      listUsersForAdmin({ deps: ctx.deps, q: input.q, role: input.role, status: input.status, limit: input.limit ?? 50, cursor: input.cursor }),
  }),
  updateUser: defineOperation({
    operationId: "updateUserForAdmin",
    access: "server-admin",
    tags,
    summary: "Disable or enable an account, grant or revoke serverAdmin, correct its name and email (server admins)",
    description:
      "Disabling ends the account's sessions and makes its API keys fail at once; its sign-in " +
      "answers 403 ACCOUNT_DISABLED. It also leaves the running announcements it has not acknowledged " +
      "(an announcement it was the last one missing from becomes acknowledged); enabling it again adds it " +
      "to the announcements created from then on. Nothing may leave the server without an enabled server admin " +
      "(409 LAST_SERVER_ADMIN), and an admin cannot disable their own account (403). " +
      "Extension to docs/api-contract.md: `name` and `email` correct the account's name and sign-in address, checked as at signup " +
      "(400 VALIDATION_FAILED naming the field); an email another account uses, in any case, is 409 EMAIL_TAKEN. " +
      "A new email takes effect at once (the next sign-in uses it, the old one no longer signs in), and the old address is sent a " +
      "notice that a server administrator changed it, with the new address partly masked, and the password reset links mailed to it stop working; " +
      "the new address is told that it signs in to the account from now on (the old one is often gone: that is why an administrator changes it); " +
      "a change of case only is stored and told to nobody. " +
      "The account's sessions and API keys stay valid: correcting a name or an email is not a security reset. Each change " +
      "is written to the audit log (`user.renamed`, `user.email_changed` for these).",
    method: "put",
    path: "/api/v1/admin/users/{id}",
    status: 200,
    params: z.object({ id: opaqueIdSchema }),
    body: adminUserUpdateSchema,
    output: adminUserSchema,
    outputDescription: "The account",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("Server administrators only, or disabling oneself (FORBIDDEN)"),
      404: problemResponseFor("Not found (NOT_FOUND)"),
      409: problemResponseFor("It would leave no enabled server administrator (LAST_SERVER_ADMIN), or another account uses the email (EMAIL_TAKEN)"),
    },
    handle: ({ ctx, actor, input }) => {
      const { id, ...update } = input;
      return updateUserByAdmin({ deps: ctx.deps, actor, userId: id, input: update });
    },
  }),
  audit: defineOperation({
    operationId: "listAuditLog",
    access: "server-admin",
    tags,
    summary: "The whole audit log (server admins)",
    description:
      "Newest first. Filter by actor, target, scope and time (`from`/`to`, ISO 8601, inclusive). " +
      "Entries are kept `AUDIT_LOG_KEEP_DAYS` (365 unless set); a daily job removes older ones.",
    method: "get",
    path: "/api/v1/admin/audit",
    status: 200,
    query: pageQuery.extend({
      actorId: idParam.optional(),
      targetId: idParam.optional(),
      scopeKind: z.enum(["system", "organization", "observatory", "project"]).optional(),
      scopeId: idParam.optional(),
      from: isoDateInput.optional(),
      to: isoDateInput.optional(),
    }),
    trpcInputOptional: true,
    output: auditPageSchema,
    outputDescription: "Entries",
    responses: authedErrors,
    handle: ({ ctx, actor, input }) => {
      const { limit, cursor, ...filter } = input;
      return listAuditLog({ deps: ctx.deps, actor, filter, limit: limit ?? 50, cursor });
    },
  }),
  jobs: defineOperation({
    operationId: "listJobs",
    access: "server-admin",
    tags,
    summary: "Long jobs people started, newest first (server admins)",
    description:
      "Email fan-outs today; integrity scans, backups, restores and cleanups report here too. " +
      "Filter by `kind` and `status`. Progress also arrives as `job.progress` over `/ws`. " +
      "A finished job's record is removed JOBS_KEEP_DAYS (default 90) after it finished, by the daily `prune_tracked_jobs`; " +
      "a queued or running one stays, and so does the job a backup or an integrity scan still names as its own (`jobId`).",
    method: "get",
    path: "/api/v1/admin/jobs",
    status: 200,
    query: jobListQuerySchema,
    trpcInputOptional: true,
    output: jobListSchema,
    outputDescription: "Jobs",
    responses: { 400: errorResponses[400], 401: errorResponses[401], 403: problemResponseFor("Server administrators only (FORBIDDEN)") },
    handle: ({ ctx, input }) => listJobs({ deps: ctx.deps, limit: input.limit ?? 50, cursor: input.cursor, kind: input.kind, status: input.status }),
  }),
  job: defineOperation({
    operationId: "getJob",
    access: "server-admin",
    tags,
    summary: "One long job: status, progress, result or error (server admins)",
    description: "404 NOT_FOUND for a job never recorded, or one whose record was pruned (finished more than JOBS_KEEP_DAYS ago).",
    method: "get",
    path: "/api/v1/admin/jobs/{id}",
    status: 200,
    params: z.object({ id: opaqueIdSchema }),
    output: jobViewSchema,
    outputDescription: "The job",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("Server administrators only (FORBIDDEN)"),
      404: problemResponseFor("Not found (NOT_FOUND)"),
    },
    handle: ({ ctx, input }) => getJob({ deps: ctx.deps, jobId: input.id }),
  }),
  cancelJob: defineOperation({
    operationId: "cancelJob",
    allowedDuringMaintenance: true,
    access: "server-admin",
    tags,
    summary: "End a queued or running long job (server admins)",
    description:
      "The job becomes `failed` with an `error` naming who cancelled it, and what it held is given back: a restore's maintenance mode and " +
      "side schemas, a backup's record and objects, a scan's record, an email fan-out's unsent messages (skipped). A waiting attempt is removed; " +
      "a running one gets no retry and stops at its next progress report. Recorded in the audit log (`job.cancelled`). " +
      "A job whose every attempt ended without finishing (a killed worker never reports) is failed the same way by the minute sweep.",
    method: "post",
    path: "/api/v1/admin/jobs/{id}/cancel",
    status: 200,
    params: z.object({ id: opaqueIdSchema }),
    output: jobViewSchema,
    outputDescription: "The job, failed",
    responses: {
      400: errorResponses[400],
      401: errorResponses[401],
      403: problemResponseFor("Server administrators only (FORBIDDEN)"),
      404: problemResponseFor("Not found (NOT_FOUND)"),
      409: problemResponseFor("The job has already ended (JOB_FINISHED)"),
    },
    handle: ({ ctx, actor, input }) => cancelJob({ deps: ctx.deps, actor, jobId: input.id }),
  }),
};
