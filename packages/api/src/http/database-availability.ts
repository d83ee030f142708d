import { isDatabaseUnreachable } from "@meridian/domain";
import type postgres from "postgres";
import type { Logger } from "@meridian/config";

/** How often a process whose database is down asks again whether it is back. */
const PROBE_EVERY_MS = 250;
/** What a request refused while the database is down is told to wait: the process asks again far more often. */
export const DATABASE_DOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Whether this process's PostgreSQL is known to be down. A query that could not reach it (or met
 * it shutting down or starting up) starts a single prober, which asks `select 1` at once and then
 * every PROBE_EVERY_MS: only once that failed is the database down, so a lone cut connection never
 * refuses requests on a database that works. While it is down, requests are refused at once (503,
 * Retry-After) instead of each waiting on connections that cannot be made; the first probe that
 * succeeds ends it, and the pool's connection it made serves the next request.
 */
export class DatabaseAvailability {
  #down = false;
  #probing: Promise<void> | undefined;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly logger: Logger,
  ) {}

  get down(): boolean {
    return this.#down;
  }

  /** Looks at a request's failure: one that says PostgreSQL is unreachable starts the prober. */
  noteFailure(error: unknown): void {
    if (isDatabaseUnreachable(error)) this.#probing ??= this.#probe().finally(() => (this.#probing = undefined));
  }

  async #probe(): Promise<void> {
    for (;;) {
      try {
        await this.sql`select 1`;
        break;
      } catch (error) {
        if (!isDatabaseUnreachable(error)) break;
        if (!this.#down) this.logger.warn({ err: error }, "PostgreSQL is unreachable: requests are refused at once until it answers again");
        this.#down = true;
      }
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS).unref());
    }
    if (this.#down) this.logger.warn("PostgreSQL answers again: requests are served");
    this.#down = false;
  }
}
