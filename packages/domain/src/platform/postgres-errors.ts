/** True for PostgreSQL's unique_violation, optionally on one named constraint. */
export function isUniqueViolation({ error, constraint }: { error: unknown; constraint?: string }): boolean {
  const candidate = (error as { cause?: unknown })?.cause ?? error;
  for (const value of [error, candidate]) {
    const pg = value as { code?: string; constraint_name?: string };
    if (pg?.code === "23505" && (constraint === undefined || pg.constraint_name === constraint)) return true;
  }
  return false;
}

/** Node's socket errors and postgres.js's own connection errors: PostgreSQL could not be reached or left. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EPIPE",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
]);
/**
 * insufficient_resources, out_of_memory and too_many_connections (for the server, a database or a
 * role), and a server starting or shutting down: a refusal for now, not of the request.
 */
const REFUSING = new Set(["53000", "53200", "53300", "57P01", "57P02", "57P03"]);

/**
 * True when the request could not get a PostgreSQL connection (refused, unreachable, timed out or
 * cut): nothing about the request was wrong, so it is a 503 that may be tried again.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1) {
    const code = (value as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (UNREACHABLE.has(code) || REFUSING.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return false;
}

/** A server shutting down (57P01 admin_shutdown, 57P02 crash_shutdown) or starting up (57P03). */
const GOING_OR_COMING = new Set(["57P01", "57P02", "57P03"]);

/**
 * True when PostgreSQL itself could not be reached or is going down or coming up (not when it is
 * merely busy: out of connections or memory is a working database that refuses for now).
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1) {
    const code = (value as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (UNREACHABLE.has(code) || GOING_OR_COMING.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return false;
}

/**
 * PostgreSQL's data exceptions that only a value from outside can cause here: text holding NUL
 * (22021) or a lone surrogate in jsonb (22P05), a moment (22007, 22008) or a number (22003) out of
 * its type's range. Schemas refuse these first; a field that misses a rule is still a 400, not a 500.
 */
const UNSTORABLE_VALUE = new Set(["22021", "22P05", "22007", "22008", "22003"]);

/** True when PostgreSQL refused a value it cannot store or compare (see UNSTORABLE_VALUE). */
export function isUnstorableValue(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1) {
    const code = (value as { code?: unknown }).code;
    if (typeof code === "string" && UNSTORABLE_VALUE.has(code)) return true;
  }
  return false;
}

/**
 * True when PostgreSQL could not extend a file for the change (53100 disk_full): the disk holding
 * the cluster, or the table's tablespace, is full. Nothing of the change was kept; the same change
 * succeeds once space is freed.
 */
export function isDatabaseOutOfSpace(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1) {
    if ((value as { code?: unknown }).code === "53100") return true;
  }
  return false;
}

/**
 * True when PostgreSQL stopped the statement (57014): its statement_timeout ran out, or the request
 * it belonged to passed its deadline and cancelled it. Nothing about the request was wrong: a 503.
 */
export function isStatementCancelled(error: unknown): boolean {
  for (let value = error, depth = 0; value && depth < 5; value = (value as { cause?: unknown }).cause, depth += 1)
    if ((value as { code?: unknown }).code === "57014") return true;
  return false;
}
