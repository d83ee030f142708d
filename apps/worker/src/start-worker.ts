import { setTimeout as sleep } from "node:timers/promises";
import { removeLeftoverWorkFolders } from "@meridian/domain/frames";
import { freeJobsOfDeadWorkers, startJobRunners, type WorkerOptions } from "./job-runners";

export interface RunningWorker {
  workerId: string;
  stop(): Promise<void>;
}

/** The longest wait between two attempts to start the job runners again while the database is out of reach. */
const RESTART_BACKOFF_MAX_MS = 30_000;

/**
 * Runs graphile-worker over the tasks of this app and records a heartbeat for health checks.
 *
 * graphile-worker stops its runner for good when it cannot record a job's end (the database
 * refused or could not be reached): the job stays locked in the runner's name and nothing runs
 * any more. The process then does what a restart would, without taking the HTTP server of a
 * combined process down: it gives up its presence, so that its jobs are freed as a dead worker's
 * (and run again), and starts new runners under a new name, trying again until the database
 * answers.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { logger } = options.deps;
  // What frame analyses of killed workers left on this machine (their own removal never ran).
  const leftovers = await removeLeftoverWorkFolders().catch((error: unknown) => (logger.warn({ err: error }, "could not remove old analysis folders"), []));
  if (leftovers.length > 0) logger.info({ folders: leftovers }, "removed the folders of analyses a killed worker left");
  const stopping = new AbortController();
  const stopRequested = new Promise<undefined>((resolve) => stopping.signal.addEventListener("abort", () => resolve(undefined)));
  let current = await startJobRunners(options);
  const supervised = (async () => {
    for (;;) {
      const broken = await Promise.race([current.broken, stopRequested]);
      if (broken === undefined) return;
      logger.error({ workerId: current.workerId, reason: broken }, "a job runner stopped on its own; freeing its jobs and starting new runners");
      await current.abandon();
      for (let attempt = 0; !stopping.signal.aborted; attempt += 1) {
        try {
          await freeJobsOfDeadWorkers(options.deps);
          current = await startJobRunners(options);
          logger.warn({ workerId: current.workerId }, "job runners started again");
          break;
        } catch (error) {
          const delay = Math.min(RESTART_BACKOFF_MAX_MS, 500 * 2 ** attempt);
          logger.warn({ err: error, retryInMs: delay }, "could not start the job runners again");
          await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
        }
      }
    }
  })();
  let stopped: Promise<void> | undefined;
  return {
    get workerId() {
      return current.workerId;
    },
    // Idempotent: a server stopping its worker after someone else already did must not throw.
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        await supervised;
        await current.stop();
      })();
      return stopped;
    },
  };
}
