/** True for PostgreSQL's unique_violation, optionally on one named constraint. */
export function isUniqueViolation({ error, constraint }: { error: unknown; constraint?: string }): boolean {
  const candidate = (error as { cause?: unknown })?.cause ?? error;
  for (const value of [error, candidate]) {
    const pg = value as { code?: string; constraint_name?: string };
    if (pg?.code === "23505" && (constraint === undefined || pg.constraint_name === constraint)) return true;
  }
  return false;
}
