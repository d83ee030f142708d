export interface UntilOptions {
  /** How long to keep trying (20 s unless given). */
  timeoutMs?: number;
  /** The pause between two attempts (50 ms unless given). */
  intervalMs?: number;
  /** Count a probe that throws as "not yet" (a process that is not listening yet) instead of failing at once. */
  ignoreErrors?: boolean;
}

/**
 * Polls `probe` until it gives a value other than undefined or false, and returns that value;
 * throws `timed out waiting for <what>` once `timeoutMs` has passed.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, options: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 50, ignoreErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await (ignoreErrors ? probe().catch(() => undefined) : probe());
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
