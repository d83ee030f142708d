import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import { tables } from "@meridian/db";
import { frameAnalysisForbiddenFlags } from "@meridian/domain/frames";
import { jobRegistry } from "@meridian/domain/job-registry";
import { beatWorkerHeartbeat, holdWorkerPresence, reconcileTrackedJobs, recoverStaleWorkers, closeMailTransport, type Deps } from "@meridian/domain/platform";
import { Logger as WorkerLogger, run, type Runner, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import { eq } from "drizzle-orm";
import { lookAgainAfterOverlaps } from "./look-again";
import { buildTaskList, crontab } from "./task-list";

/** Often enough that a worker silent for STALE_WORKER_SECONDS (20 s) is surely dead. */
const HEARTBEAT_MS = 5_000;
/** How often each worker looks for dead ones: a killed worker (its presence lock gone) is noticed within this. */
const RECOVERY_MS = 2_000;

export interface WorkerOptions {
  deps: Deps;
  databaseUrl: string;
  /** The process's name in pg_stat_activity: the job runners' connections count with the process's own. */
  applicationName?: string;
  concurrency?: number;
}

/**
 * graphile-worker warns at every start that its pool is smaller than a runner's concurrency. The
 * pool is small on purpose (ADR 0022): job bodies use the process's own pool, and graphile-worker
 * holds its connections only to take and end jobs, and one per runner to LISTEN.
 */
const SHARED_POOL_WARNING = /^WARNING: having maxPoolSize/;

/**
 * Frees the jobs and email claims of every worker that no longer holds its presence, this process's old runners among them;
 * never those of `self`, the runners calling it, which are alive though their presence's connection may be cut.
 */
export const freeJobsOfDeadWorkers = (deps: Deps, self?: string) =>
  recoverStaleWorkers({ deps, self }).then(async ({ workers }) => void (workers.length > 0 ? await reconcileTrackedJobs({ deps }) : undefined));

export interface JobRunners {
  workerId: string;
  /** Settles, with the reason, when a runner stops without being asked to. */
  broken: Promise<string>;
  /** A clean stop: running jobs finish, nothing is left locked, the heartbeat goes. */
  stop(): Promise<void>;
  /** After `broken`: stops what still runs and gives up the presence, leaving the heartbeat for recovery to find. */
  abandon(): Promise<void>;
}

/** One generation of graphile-worker runners (jobs, and emails apart) with this process's presence, heartbeat and recovery of dead workers. */
export async function startJobRunners(options: WorkerOptions): Promise<JobRunners> {
  const { deps } = options;
  const workerId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const target = deps.logger.child({ component: "worker", ...scope });
    const method = level === "error" ? "error" : level === "warning" && !SHARED_POOL_WARNING.test(message) ? "warn" : level === "info" ? "info" : "debug";
    target[method](meta ?? {}, message);
  });
  // graphile-worker locks jobs in the name of its worker pool (and, run singly, of a worker): the
  // heartbeat lists those ids so that a survivor can unlock the jobs if this process dies.
  const graphileWorkerIds = new Set<string>();
  // Held before the first job is taken, so no job of this worker can exist while it looks dead.
  const presence = await holdWorkerPresence({ deps, workerId });
  const events = new EventEmitter() as WorkerEvents;
  events.on("pool:create", ({ workerPool }) => graphileWorkerIds.add(workerPool.id));
  events.on("worker:create", ({ worker }) => graphileWorkerIds.add(worker.workerId));
  lookAgainAfterOverlaps(events);
  const SEND_EMAIL_TASK = jobRegistry.send_email.name;
  const { [SEND_EMAIL_TASK]: sendEmail, ...taskList } = buildTaskList({ deps });
  // One pool for both runners, sized by JOBS_DATABASE_POOL_SIZE (databaseConnectionBudget): each
  // runner would otherwise open a pool of 10 of its own. Job bodies use the process's own pool.
  const pgPool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: deps.env.JOBS_DATABASE_POOL_SIZE,
    application_name: options.applicationName ?? "meridian-worker",
    connectionTimeoutMillis: deps.env.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
  });
  const connectionFailed = (error: Error) => deps.logger.warn({ err: error }, "a job-queue database connection failed");
  pgPool.on("error", connectionFailed);
  // A client that loses its server while checked out reports it here, not to the pool.
  pgPool.on("connect", (client) => client.on("error", connectionFailed));
  const common = {
    events,
    pgPool,
    pollInterval: deps.env.JOBS_POLL_INTERVAL_SECONDS * 1000,
    noHandleSignals: true,
    logger,
    // Batched, a job's end that cannot be recorded stops the runner (seen through `broken` below).
    // Unbatched (the default), graphile-worker 0.18 leaves that promise unawaited: an unhandled
    // rejection that ends the whole process.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  };
  let runner: Runner;
  let emailRunner: Runner;
  try {
    runner = await run({
      ...common,
      concurrency: options.concurrency ?? deps.env.WORKER_CONCURRENCY,
      taskList,
      crontab,
      // Frame analyses take FRAME_ANALYSIS_CONCURRENCY of the runs at most; the others stay free for the rest.
      forbiddenFlags: frameAnalysisForbiddenFlags(deps),
    });
    // Emails have runs of their own, one recipient each, as many at once as the worker keeps SMTP
    // connections: a backlog of mail neither waits for nor holds up the other jobs (dispatch above all).
    emailRunner = await run({
      ...common,
      concurrency: deps.env.SMTP_POOL_SIZE,
      taskList: { [SEND_EMAIL_TASK]: sendEmail! },
      // No schedule of its own: said in code, or graphile-worker looks for a ./crontab file and logs that cron is disabled.
      parsedCronItems: [],
    }).catch(async (error: unknown) => {
      await runner.stop();
      throw error;
    });
  } catch (error) {
    await pgPool.end().catch(() => undefined);
    await presence.release();
    throw error;
  }
  const beat = () =>
    beatWorkerHeartbeat({ deps, workerId, graphileWorkerIds: [...graphileWorkerIds] }).catch((error) =>
      deps.logger.warn({ err: error }, "worker heartbeat failed"),
    );
  await beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  // A dead worker's last attempt of a long job ends nothing by itself: end such jobs at once.
  const recover = () => freeJobsOfDeadWorkers(deps, workerId).catch((error) => deps.logger.warn({ err: error }, "could not look for dead workers"));
  await recover();
  const recoveryTimer = setInterval(() => void recover(), RECOVERY_MS);
  recoveryTimer.unref();
  let stopping = false;
  const broken = Promise.race(
    [runner, emailRunner].map((each) =>
      each.promise.then(
        () => "the runner's worker pool exited",
        (error: unknown) => `the runner's worker pool exited with an error: ${String(error)}`,
      ),
    ),
  );
  // Awaited by the supervisor only while the runners should run: one stopped on purpose is not broken.
  const brokenWhileRunning = broken.then((reason) => (stopping ? new Promise<never>(() => undefined) : reason));
  const stopRunners = async () => {
    stopping = true;
    clearInterval(timer);
    clearInterval(recoveryTimer);
    // A runner that stopped on its own refuses a second stop: nothing is left to wait for.
    await Promise.all([runner, emailRunner].map((each) => each.stop().catch(() => undefined)));
    await pgPool.end().catch((error: unknown) => deps.logger.warn({ err: error }, "could not close the job-queue pool"));
  };
  let stopped: Promise<void> | undefined;
  return {
    workerId,
    broken: brokenWhileRunning,
    stop() {
      stopped ??= (async () => {
        await stopRunners();
        closeMailTransport(deps);
        await deps.db
          .delete(tables.workerHeartbeats)
          .where(eq(tables.workerHeartbeats.workerId, workerId))
          .catch(() => undefined);
        await presence.release();
      })();
      return stopped;
    },
    abandon() {
      stopped ??= (async () => {
        await stopRunners();
        await presence.release().catch(() => undefined);
      })();
      return stopped;
    },
  };
}
