import { AsyncLocalStorage } from "node:async_hooks";
import type postgres from "postgres";

/** Thrown by a query started in a scope that has ended: the work it belonged to was given up. */
class QueryScopeEnded extends Error {
  readonly code = "57014";
  constructor(reason: string) {
    super(`canceling statement: ${reason}`);
  }
}

type Settling = postgres.PendingQuery<postgres.Row[]> & { resolve(value: unknown): void; reject(error: unknown): void };

/**
 * The queries one piece of work (an HTTP request) has under way, so that giving the work up also
 * stops them: each one waiting for a connection leaves the queue, each one running is cancelled on
 * its backend (which frees the connection: a transaction around it rolls back), and each one started
 * afterwards fails at once. Queries through drizzle (`preparingForDrizzle`) are tracked.
 */
export class QueryScope {
  readonly #pending = new Set<Settling>();
  #ended: string | undefined;

  /** Called by the client wrapper for each query created in the scope, before anything awaits it. */
  track(query: object) {
    if (this.#ended) throw new QueryScopeEnded(this.#ended);
    const settling = query as unknown as Settling;
    const { resolve, reject } = settling;
    // Its own settling, not `then`: `then` would start the query before drizzle asks for its row format.
    settling.resolve = (value) => {
      this.#pending.delete(settling);
      resolve(value);
    };
    settling.reject = (error) => {
      this.#pending.delete(settling);
      reject(error);
    };
    this.#pending.add(settling);
  }

  /** Cancels what is under way and refuses what comes. */
  end(reason: string) {
    this.#ended ??= reason;
    for (const query of this.#pending) query.cancel();
    this.#pending.clear();
  }
}

const scopes = new AsyncLocalStorage<QueryScope>();

/** Runs `work` with its queries tracked in `scope`. */
export const runInQueryScope = <T>(scope: QueryScope, work: () => T): T => scopes.run(scope, work);

/** The scope of the work under way, if any. */
export const currentQueryScope = () => scopes.getStore();
