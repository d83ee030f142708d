import { hostname } from "node:os";
import { tables } from "@meridian/db";
import type { Deps } from "@meridian/domain";
import { Logger as WorkerLogger, run, type Runner } from "graphile-worker";
import { eq, sql } from "drizzle-orm";
import { buildTaskList, crontab } from "./task-list";

export interface RunningWorker {
  workerId: string;
  stop(): Promise<void>;
}

const HEARTBEAT_MS = 10_000;

/** Runs graphile-worker over the tasks of this app and records a heartbeat for health checks. */
export async function startWorker(options: { deps: Deps; databaseUrl: string; concurrency?: number; pollInterval?: number }): Promise<RunningWorker> {
  const { deps } = options;
  const workerId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const target = deps.logger.child({ component: "worker", ...scope });
    const method = level === "error" ? "error" : level === "warning" ? "warn" : level === "info" ? "info" : "debug";
    target[method](meta ?? {}, message);
  });
  const runner: Runner = await run({
    connectionString: options.databaseUrl,
    concurrency: options.concurrency ?? deps.env.WORKER_CONCURRENCY,
    pollInterval: options.pollInterval ?? 2000,
    noHandleSignals: true,
    taskList: buildTaskList({ deps }),
    crontab,
    logger,
  });
  const beat = () =>
    deps.db
      .insert(tables.workerHeartbeats)
      .values({ workerId })
      .onConflictDoUpdate({ target: tables.workerHeartbeats.workerId, set: { lastSeenAt: sql`now()` } })
      .then(() => undefined, (error) => deps.logger.warn({ err: error }, "worker heartbeat failed"));
  await beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  // Idempotent: a server stopping its worker after someone else already did must not throw.
  let stopping: Promise<void> | undefined;
  return {
    workerId,
    stop() {
      stopping ??= (async () => {
        clearInterval(timer);
        await runner.stop();
        await deps.db.delete(tables.workerHeartbeats).where(eq(tables.workerHeartbeats.workerId, workerId)).catch(() => undefined);
      })();
      return stopping;
    },
  };
}
