import type { Deps } from "../deps";
import type { DefinedJob, JobAttempt } from "./define-job";

/** An error's message as a job's record shows it. */
const reasonOf = (error: unknown) => String((error as Error)?.message ?? error);

/** Why a job ended whose every attempt ended without finishing (a killed attempt leaves no error). */
export function killedAttemptsReason(options: { attempts: number; maxAttempts: number; lastError: string | null }) {
  return (
    `Every attempt (${options.attempts} of ${options.maxAttempts}) ended without finishing; the last: ` +
    (options.lastError ?? "its worker stopped (killed or lost)")
  ).slice(0, 500);
}

/**
 * The one last-attempt `catch`: when the attempt that throws is the job's last, the job's
 * `afterLastAttempt` records the end before graphile-worker does (an attempt killed instead never
 * gets here: the reconcile sweep ends that one). Earlier attempts throw on, to be retried.
 */
async function lastAttemptCatch<Payload>(options: {
  deps: Deps;
  attempt: JobAttempt;
  payload: Payload;
  afterLastAttempt: ((payload: Payload, context: { deps: Deps; reason: string }) => Promise<unknown>) | undefined;
  run: () => Promise<unknown>;
}): Promise<void> {
  try {
    await options.run();
  } catch (error) {
    const { attempts, max_attempts: maxAttempts } = options.attempt.job;
    if (options.afterLastAttempt && attempts >= maxAttempts) await options.afterLastAttempt(options.payload, { deps: options.deps, reason: reasonOf(error) });
    throw error;
  }
}

/**
 * The function graphile-worker runs for a job: the payload is checked by the job's schema before any
 * work (a bad one fails the attempt), then `run` under the last-attempt catch.
 */
export function jobTask({ job, deps }: { job: DefinedJob; deps: Deps }) {
  return async (payload: unknown, attempt: JobAttempt): Promise<void> => {
    const parsed = job.payload.safeParse(payload);
    if (!parsed.success) throw new Error(`invalid payload for ${job.name}: ${parsed.error.message}`);
    await lastAttemptCatch({
      deps,
      attempt,
      payload: parsed.data,
      afterLastAttempt: job.afterLastAttempt,
      run: () => job.run(parsed.data, { deps, attempt }),
    });
  };
}
