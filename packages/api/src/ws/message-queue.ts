/**
 * One socket's messages, handled one at a time in the order they came, so replies keep the
 * order of requests. At most `limit` wait behind the one being handled: a client cannot make the
 * server hold (and later work through) an unbounded backlog. Once stopped, whatever waits is
 * dropped and nothing more is taken: a closed socket's messages cost nothing more.
 */
export class MessageQueue {
  private readonly waiting: Array<() => Promise<unknown>> = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly limit: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get isStopped() {
    return this.stopped;
  }

  /** Takes a task; false when `limit` tasks already wait (the task is not taken). A stopped queue drops it. */
  push(task: () => Promise<unknown>): boolean {
    if (this.stopped) return true;
    if (this.waiting.length >= this.limit) return false;
    this.waiting.push(task);
    this.running ??= this.drain();
    return true;
  }

  /** Drops what waits; resolves once the task being handled, if any, has finished. */
  stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    return this.running ?? Promise.resolve();
  }

  private async drain() {
    for (let task = this.waiting.shift(); task && !this.stopped; task = this.waiting.shift()) {
      try {
        await task();
      } catch (error) {
        this.onError(error);
      }
    }
    this.running = undefined;
  }
}

/** A rate with a burst of one second's worth: `take()` says whether one more message fits now. */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    now = Date.now(),
  ) {
    this.tokens = perSecond;
    this.at = now;
  }

  take(now = Date.now()): boolean {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
