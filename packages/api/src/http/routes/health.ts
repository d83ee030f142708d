import { createRoute, z } from "@hono/zod-openapi";
import { checkHealth } from "@meridian/domain";
import type { ApiServices } from "../../context";
import { createRouter } from "../env";
import { jsonResponse } from "../openapi-shared";

const status = z.enum(["ok", "degraded", "down"]);
const healthSchema = z
  .object({
    status,
    version: z.string(),
    uptimeSeconds: z.number().int(),
    checks: z.object({
      database: z.object({ status, latencyMs: z.number() }),
      objectStorage: z.object({ status, latencyMs: z.number() }),
      websocket: z.object({ status, connections: z.number().int() }),
      worker: z.object({ status, queuedJobs: z.number().int(), workers: z.number().int() }),
    }),
    reason: z.literal("draining").optional().describe("Present while the process shuts down: status is `down` whatever the checks say"),
  })
  .openapi("Health");

const tags = ["Health"];
const description =
  "Each check is time-boxed to 1 s. Database, object storage and WebSocket are required: any of them down gives 503 with status `down`. " +
  "Without a live worker the status is `degraded` and the answer stays 200 (jobs wait in the queue). " +
  "From the moment the process is told to stop, the answer is 503 with status `down` and `reason: \"draining\"` (liveness stays 200).";

export function healthRoutes(services: ApiServices) {
  const report = async () => {
    const health = await checkHealth({ deps: services.deps, startedAt: services.startedAt, websocket: services.websocketStatus });
    // Asked after the checks too: a drain that began while they ran must still say so.
    if (services.isDraining?.()) return { health: { ...health, status: "down" as const, reason: "draining" as const }, code: 503 as const };
    return { health, code: health.status === "down" ? (503 as const) : (200 as const) };
  };
  return createRouter()
    .openapi(
      createRoute({ method: "get", path: "/api/health/live", tags, summary: "Liveness", responses: { 200: jsonResponse(z.object({ status: z.literal("ok") }), "The process serves requests") } }),
      (c) => c.json({ status: "ok" as const }, 200),
    )
    .openapi(
      createRoute({ method: "get", path: "/api/health/ready", tags, summary: "Readiness", description, responses: { 200: jsonResponse(healthSchema, "Ready"), 503: jsonResponse(healthSchema, "Not ready") } }),
      async (c) => {
        const { health, code } = await report();
        return c.json(health, code);
      },
    )
    .openapi(
      createRoute({ method: "get", path: "/api/health", tags, summary: "Health", description, responses: { 200: jsonResponse(healthSchema, "Healthy"), 503: jsonResponse(healthSchema, "Unhealthy") } }),
      async (c) => {
        const { health, code } = await report();
        return c.json(health, code);
      },
    );
}
