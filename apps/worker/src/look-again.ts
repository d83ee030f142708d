import type { Worker, WorkerEvents, WorkerPool } from "graphile-worker";

/**
 * graphile-worker's look for a job locks the row of every free job queue for the length of its
 * statement (FOR UPDATE SKIP LOCKED), whatever tasks its pool runs and whichever job it takes. Two
 * looks under way at once (this process's job and email pools, both woken by one NOTIFY; or two
 * workers of one pool) hide the queued jobs (a recipient's emails, a user's pushes) from each other:
 * one of them finds nothing though a job waits, and its worker sleeps until the poll. A worker
 * whose look overlapped another and came back empty looks again once no look is under way in this
 * process, one pool at a time, so that two second looks never hide jobs from each other.
 * Overlaps with another process's looks are left to the poll.
 */
export function lookAgainAfterOverlaps(events: WorkerEvents): void {
  const looking = new Set<Worker>();
  const overlapped = new WeakSet<Worker>();
  const owed = new Set<WorkerPool>();

  let scheduled = false;

  /**
   * Never from inside graphile-worker's own event: a nudge there reaches the worker that sent the
   * event, which then looks again itself beside the worker the nudge woke, and two looks overlap.
   */
  const schedule = () => {
    if (scheduled || owed.size === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      lookAgain();
    });
  };
  const lookAgain = () => {
    const [pool] = owed;
    if (!pool || looking.size > 0) return;
    owed.delete(pool);
    // As graphile-worker's own listener does: a pool that is stopping takes no nudge.
    // Otherwise the look starts at once if one of the pool's workers is idle; a busy pool looks after its jobs anyway.
    if (pool._active && !pool._shuttingDown) pool.nudge(1);
    // The next pool waits at least a turn for this one's look to start, and then for it to end.
    schedule();
  };
  const ended = (worker: Worker, found: boolean) => {
    looking.delete(worker);
    if (!found && overlapped.has(worker)) owed.add(worker.workerPool);
    overlapped.delete(worker);
    schedule();
  };

  events.on("worker:getJob:start", ({ worker }) => {
    if (looking.size > 0) {
      overlapped.add(worker);
      for (const other of looking) overlapped.add(other);
    }
    looking.add(worker);
  });
  events.on("job:start", ({ worker }) => ended(worker, true));
  events.on("worker:getJob:empty", ({ worker }) => ended(worker, false));
  events.on("worker:getJob:error", ({ worker }) => ended(worker, true));
}
