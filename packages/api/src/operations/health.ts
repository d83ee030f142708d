import { z } from "@hono/zod-openapi";
import { checkHealth } from "@meridian/domain/health";
import { latestScanSummary } from "@meridian/domain/integrity";
import { type UserActor } from "@meridian/domain/platform";
import type { ApiServices } from "../context";
import { jsonResponse } from "../http/openapi-shared";
import { defineOperation, Reply } from "./define-operation";
import { problemResponseFor } from "./responses";

const status = z.enum(["ok", "degraded", "down"]);
const healthSchema = z
  .object({
    status,
    version: z.string(),
    uptimeSeconds: z.number().int(),
    checks: z.object({
      database: z.object({
        status,
        latencyMs: z.number(),
        outOfSpaceSince: z
          .string()
          .optional()
          .describe(
            "Present, with status `degraded`, while the database refuses writes for want of space (PostgreSQL's disk_full): since when. " +
              "Reads are still served and writes answer 507 INSUFFICIENT_STORAGE",
          ),
      }),
      objectStorage: z.object({ status, latencyMs: z.number() }),
      websocket: z.object({ status, connections: z.number().int() }),
      worker: z.object({ status, queuedJobs: z.number().int(), workers: z.number().int() }),
    }),
    maintenance: z
      .object({ active: z.boolean(), since: z.string().nullable(), jobId: z.string().nullable() })
      .describe(
        "While a restore holds writes (every write answers 503 MAINTENANCE): `active`, since when, and the restore's job; the status is then `degraded`",
      ),
    integrity: z
      .object({
        latestScan: z
          .object({
            id: z.string(),
            kind: z.enum(["quick", "full"]),
            status: z.enum(["queued", "running", "completed", "failed"]),
            summary: z.object({ critical: z.number().int(), warning: z.number().int(), info: z.number().int() }),
            finishedAt: z.string().nullable(),
          })
          .nullable(),
      })
      .optional()
      .describe("Only for a server administrator's credentials: the newest finished integrity scan in brief"),
    reason: z.literal("draining").optional().describe("Present while the process shuts down: status is `down` whatever the checks say"),
  })
  .openapi("Health");

const tags = ["Health"];
const description =
  "Each check is time-boxed to 1 s. Database, object storage and WebSocket are required: any of them down gives 503 with status `down`. " +
  "Without a live worker, while a restore holds writes (`maintenance.active`), or while the database refuses writes for want of space " +
  "(`checks.database.outOfSpaceSince`: once a write was refused, each health check asks again with a write of its own that needs new space, " +
  "rolled back), the status is `degraded` and the answer stays 200. " +
  'From the moment the process is told to stop, the answer is 503 with status `down` and `reason: "draining"` (liveness stays 200).';
// Every route refuses a URL holding NUL before anything else; that is the only 4xx these can give.
const badUrl = { 400: problemResponseFor("The URL holds a NUL character (VALIDATION_FAILED)") };

/** Liveness and readiness, for load balancers and orchestrators: no credentials, REST only. */
export function healthOperations(services: ApiServices) {
  const report = async ({ actor }: { actor?: UserActor }) => {
    const checked = await checkHealth({ deps: services.deps, startedAt: services.startedAt, websocket: services.websocketStatus });
    const health = actor?.isServerAdmin ? { ...checked, integrity: { latestScan: await latestScanSummary(services.deps).catch(() => null) } } : checked;
    // A drain that began while the checks ran must still be reported, so this is asked last.
    if (services.isDraining?.()) return new Reply(503, { ...health, status: "down" as const, reason: "draining" as const });
    return new Reply(health.status === "down" ? 503 : 200, health);
  };
  const readiness = (operationId: string, path: string, summary: string, ok: string, notOk: string) =>
    defineOperation({
      operationId,
      access: "public",
      tags,
      summary,
      description,
      method: "get",
      path,
      status: 200,
      output: healthSchema,
      outputDescription: ok,
      responses: { ...badUrl, 503: jsonResponse(healthSchema, notOk) },
      trpc: false,
      handle: report,
    });
  return [
    defineOperation({
      operationId: "checkLiveness",
      access: "public",
      tags,
      summary: "Liveness",
      method: "get",
      path: "/api/health/live",
      status: 200,
      output: z.object({ status: z.literal("ok") }),
      outputDescription: "The process serves requests",
      responses: badUrl,
      trpc: false,
      handle: () => ({ status: "ok" as const }),
    }),
    readiness("checkReadiness", "/api/health/ready", "Readiness", "Ready", "Not ready"),
    readiness("checkHealth", "/api/health", "Health", "Healthy", "Unhealthy"),
  ];
}
