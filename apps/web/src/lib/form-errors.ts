import { summarizeError, type ProblemSummary } from "./errors";

/**
 * The summary of a failed call, with field errors re-keyed relative to `prefix`
 * (tRPC inputs nest fields, e.g. `update.name`), and codes that belong to one field placed there.
 */
export function formProblem(error: unknown, options: { prefix?: string; codeFields?: Record<string, string> } = {}): ProblemSummary | null {
  if (!error) return null;
  const problem = summarizeError(error);
  const fieldErrors: Record<string, string> = {};
  const prefix = options.prefix ? `${options.prefix}.` : "";
  for (const [path, message] of Object.entries(problem.fieldErrors)) {
    if (!prefix) fieldErrors[path] = message;
    else if (path.startsWith(prefix)) fieldErrors[path.slice(prefix.length)] = message;
  }
  const field = problem.code ? options.codeFields?.[problem.code] : undefined;
  if (field && !fieldErrors[field]) fieldErrors[field] = problem.message;
  return { ...problem, fieldErrors };
}

/** The message for the top of a form: only when no field shows the failure. */
export function generalMessage(problem: ProblemSummary | null, shownFields: string[]): string | null {
  if (!problem) return null;
  return shownFields.some((field) => problem.fieldErrors[field]) ? null : problem.message;
}
