import { isDatabaseUnreachable } from "@meridian/domain/platform";
import type postgres from "postgres";
import type { Logger } from "@meridian/config";

/** How often a process whose database is down asks again whether it is back. */
const PROBE_EVERY_MS = 250;
/** How long a request that comes while the database is down waits for its own try of it. */
const ATTEMPT_WAIT_MS = 500;
/** What a request refused while the database is down is told to wait: the process asks again far more often. */
export const DATABASE_DOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Whether this process's PostgreSQL is known to be down. A query that could not reach it (or met
 * it shutting down or starting up) starts a single prober, which asks `select 1` at once and then
 * every PROBE_EVERY_MS: only once that failed is the database down, so a lone cut connection never
 * refuses requests on a database that works. While it is down, a request tries it once more itself
 * (joining a try under way), for at most ATTEMPT_WAIT_MS: refused (503, Retry-After) when that
 * fails, instead of waiting on connections that cannot be made; served at once when it is back.
 */
export class DatabaseAvailability {
  #down = false;
  #attempt: Promise<boolean> | undefined;
  #probing = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly logger: Logger,
  ) {}

  get down(): boolean {
    return this.#down;
  }

  /** Looks at a request's failure: one that says PostgreSQL is unreachable starts the prober. */
  noteFailure(error: unknown): void {
    if (this.#probing || !isDatabaseUnreachable(error)) return;
    this.#probing = true;
    void this.#probe().finally(() => (this.#probing = false));
  }

  /** Whether a request may go on: the database is not known to be down, or a try of it now succeeded. */
  async admits(): Promise<boolean> {
    if (!this.#down) return true;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ATTEMPT_WAIT_MS)));
    try {
      return await Promise.race([this.#tryOnce(), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One `select 1`, shared by whoever asks while it runs; true when PostgreSQL answered (or failed for another reason). */
  #tryOnce(): Promise<boolean> {
    this.#attempt ??= this.sql`select 1`
      .then(
        () => true,
        (error: unknown) => !isDatabaseUnreachable(error),
      )
      .then((reached) => {
        if (reached && this.#down) {
          this.#down = false;
          this.logger.warn("PostgreSQL answers again: requests are served");
        }
        return reached;
      })
      .finally(() => (this.#attempt = undefined));
    return this.#attempt;
  }

  async #probe(): Promise<void> {
    while (!(await this.#tryOnce())) {
      if (!this.#down) this.logger.warn("PostgreSQL is unreachable: requests are refused at once until it answers again");
      this.#down = true;
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS).unref());
    }
  }
}
