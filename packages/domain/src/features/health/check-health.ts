import { SERVER_VERSION } from "@meridian/config";
import { sql } from "drizzle-orm";
import type { Deps } from "../../platform/deps";
import { readMaintenance, type MaintenanceStatus } from "../system";
import { databaseOutOfSpace } from "./database-space";

type CheckStatus = "ok" | "down" | "degraded";

const TIME_BOX_MS = 1000;

/** Runs `work` for at most TIME_BOX_MS; on time-out its signal is aborted so it can let go of sockets. */
async function timeBoxed<T>(
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ ok: true; value: T; latencyMs: number } | { ok: false; latencyMs: number; error: string }> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    const value = await Promise.race([
      work(controller.signal),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error("timed out"));
          controller.abort();
        }, TIME_BOX_MS);
      }),
    ]);
    return { ok: true, value, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthReport {
  status: CheckStatus;
  version: string;
  uptimeSeconds: number;
  checks: {
    /** `degraded` with `outOfSpaceSince` while the database refuses writes for want of space (reads are still served). */
    database: { status: CheckStatus; latencyMs: number; outOfSpaceSince?: string };
    objectStorage: { status: CheckStatus; latencyMs: number };
    websocket: { status: CheckStatus; connections: number };
    worker: { status: CheckStatus; queuedJobs: number; workers: number };
  };
  /** While a restore holds writes (every write answers 503 MAINTENANCE), the service is degraded. */
  maintenance: Pick<MaintenanceStatus, "active" | "since" | "jobId">;
}

/**
 * Database, object storage and the WebSocket server are required (503 without them). A
 * missing worker only degrades: requests are still served and jobs wait in the queue. So does a
 * database out of space: reads are served, writes answer 507.
 */
export async function checkHealth(options: { deps: Deps; startedAt: Date; websocket: () => { running: boolean; connections: number } }): Promise<HealthReport> {
  const { deps } = options;
  const [database, objectStorage, worker] = await Promise.all([
    timeBoxed(async () => ({
      maintenance: await readMaintenance({ db: deps.db, caches: deps.caches }),
      outOfSpaceSince: await databaseOutOfSpace({ deps }),
    })),
    timeBoxed((signal) => deps.storage.ping({ signal })),
    timeBoxed(async () => {
      const rows = await deps.db.execute<{ queued: number; workers: number }>(sql`
        select
          (select count(*)::int from graphile_worker.jobs where locked_at is null and attempts < max_attempts) as queued,
          (select count(*)::int from worker_heartbeats where last_seen_at > now() - interval '30 seconds') as workers`);
      return rows[0]!;
    }),
  ]);
  const ws = options.websocket();
  const checks: HealthReport["checks"] = {
    database: !database.ok
      ? { status: "down", latencyMs: database.latencyMs }
      : database.value.outOfSpaceSince
        ? { status: "degraded", latencyMs: database.latencyMs, outOfSpaceSince: database.value.outOfSpaceSince.toISOString() }
        : { status: "ok", latencyMs: database.latencyMs },
    objectStorage: { status: objectStorage.ok ? "ok" : "down", latencyMs: objectStorage.latencyMs },
    websocket: { status: ws.running ? "ok" : "down", connections: ws.connections },
    worker: worker.ok
      ? { status: worker.value.workers > 0 ? "ok" : "down", queuedJobs: worker.value.queued, workers: worker.value.workers }
      : { status: "down", queuedJobs: 0, workers: 0 },
  };
  const required = [checks.database, checks.objectStorage, checks.websocket];
  const maintenance = database.ok ? database.value.maintenance : { active: false, since: null, jobId: null };
  const status: CheckStatus = required.some((check) => check.status === "down")
    ? "down"
    : required.every((check) => check.status === "ok") && checks.worker.status === "ok" && !maintenance.active
      ? "ok"
      : "degraded";
  return {
    status,
    version: SERVER_VERSION,
    uptimeSeconds: Math.floor((deps.now().getTime() - options.startedAt.getTime()) / 1000),
    checks,
    maintenance: { active: maintenance.active, since: maintenance.since, jobId: maintenance.jobId },
  };
}
