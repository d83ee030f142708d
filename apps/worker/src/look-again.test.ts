import { EventEmitter } from "node:events";
import type { Worker, WorkerEvents, WorkerPool } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { lookAgainAfterOverlaps } from "./look-again";

/** A pool whose idle workers look for a job when nudged, as graphile-worker's do (the look starts at once). */
function fakePool(events: WorkerEvents, name: string, idleWorkers: number, lookStartsLater = false) {
  const nudges: number[] = [];
  const pool = { id: name, _active: true, _shuttingDown: false } as unknown as WorkerPool;
  const workers = Array.from({ length: idleWorkers }, (_, index) => ({ workerPool: pool, workerId: `${name}-${index}` }) as unknown as Worker);
  const idle = [...workers];
  pool.nudge = (count: number) => {
    nudges.push(count);
    const worker = idle[0];
    if (worker && lookStartsLater) queueMicrotask(() => start(worker));
    else if (worker) start(worker);
  };
  const start = (worker: Worker) => {
    idle.splice(idle.indexOf(worker), 1);
    events.emit("worker:getJob:start", { ctx: {} as never, worker });
  };
  return {
    pool,
    nudges,
    workers,
    start,
    found: (worker: Worker) => events.emit("job:start", { ctx: {} as never, worker, job: {} as never }),
    empty: (worker: Worker) => {
      idle.push(worker);
      events.emit("worker:getJob:empty", { ctx: {} as never, worker });
    },
  };
}

/** Second looks are sent from the event loop's next turn, never from inside graphile-worker's events. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setUp(lookStartsLater = false) {
  const events = new EventEmitter() as WorkerEvents;
  lookAgainAfterOverlaps(events);
  const jobs = fakePool(events, "jobs", 4, lookStartsLater);
  const emails = fakePool(events, "emails", 8, lookStartsLater);
  const job = jobs.workers[0]!;
  const email = emails.workers[0]!;
  /** A worker of each pool looking at once (one NOTIFY woke both). */
  const bothLooking = () => {
    jobs.start(job);
    emails.start(email);
  };
  return { jobs, emails, job, email, bothLooking };
}

describe("lookAgainAfterOverlaps", () => {
  it("sends a pool that found nothing while another pool looked to look again once nobody looks", async () => {
    const { jobs, emails, job, email, bothLooking } = setUp();
    bothLooking();
    emails.empty(email);
    await nextTurn();
    expect(emails.nudges).toEqual([]);
    jobs.found(job);
    expect(emails.nudges).toEqual([]);
    await nextTurn();
    expect(emails.nudges).toEqual([1]);
    expect(jobs.nudges).toEqual([]);
  });

  it("leaves alone an empty look that overlapped nothing, and one that found a job", async () => {
    const { jobs, emails, job, email } = setUp();
    emails.start(email);
    emails.empty(email);
    jobs.start(job);
    emails.start(email);
    emails.found(email);
    jobs.found(job);
    await nextTurn();
    expect([...emails.nudges, ...jobs.nudges]).toEqual([]);
  });

  it("counts an overlap inside one pool too, and nudges only once the worker that found nothing is idle", async () => {
    const { emails } = setUp();
    const [first, second] = emails.workers;
    emails.start(first!);
    emails.start(second!);
    emails.found(first!);
    emails.empty(second!);
    expect(emails.nudges).toEqual([]);
    await nextTurn();
    expect(emails.nudges).toEqual([1]);
  });

  it("sends one pool at a time, so that the second looks cannot hide jobs from each other", async () => {
    const { jobs, emails, job, email, bothLooking } = setUp();
    bothLooking();
    jobs.empty(job);
    emails.empty(email);
    // Both owe a second look: the jobs pool goes first and is under way, so the emails pool waits.
    await nextTurn();
    expect(jobs.nudges).toEqual([1]);
    expect(emails.nudges).toEqual([]);
    await nextTurn();
    expect(emails.nudges).toEqual([]);
    jobs.empty(jobs.workers[1]!);
    await nextTurn();
    expect(emails.nudges).toEqual([1]);
    // The second looks overlapped nothing: whatever they find, nobody is sent a third time.
    emails.empty(emails.workers[1]!);
    await nextTurn();
    expect(jobs.nudges).toEqual([1]);
    expect(emails.nudges).toEqual([1]);
  });

  it("does not nudge a pool that is stopping", async () => {
    const { jobs, emails, job, email, bothLooking } = setUp();
    bothLooking();
    emails.empty(email);
    (emails.pool as unknown as { _shuttingDown: boolean })._shuttingDown = true;
    jobs.found(job);
    await nextTurn();
    expect(emails.nudges).toEqual([]);
  });

  it("waits a turn before the next pool when a nudge's look has not started yet", async () => {
    const { jobs, emails, job, email, bothLooking } = setUp(true);
    bothLooking();
    jobs.empty(job);
    emails.empty(email);
    await nextTurn();
    expect(jobs.nudges).toEqual([1]);
    expect(emails.nudges).toEqual([]);
    await nextTurn();
    // The jobs pool's second look has started by now: the emails pool waits for it to end.
    expect(emails.nudges).toEqual([]);
    jobs.found(jobs.workers[1]!);
    await nextTurn();
    expect(emails.nudges).toEqual([1]);
  });
});
