import { EnvError, loadEnv, type Env } from "./env";
import type { Logger } from "./logger";

/** Loads the configuration or exits with the validation message (no stack trace). */
export function loadEnvOrExit(): Env {
  try {
    return loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * Runs a process until SIGINT/SIGTERM. Handlers are installed before `start`, so a signal
 * during start-up still stops whatever was started (an embedded PostgreSQL, say) in order.
 */
export async function runUntilSignalled<Running extends { stop(): Promise<void> }>(options: {
  logger: Logger;
  start: () => Promise<Running>;
  onStarted?: (running: Running) => void;
}) {
  const { logger } = options;
  let running: Running | undefined;
  let signalled: string | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const forced = setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    }, 30_000);
    forced.unref();
    await running?.stop();
    logger.info("stopped");
    process.exit(0);
  };
  const onSignal = (signal: string) => {
    signalled = signal;
    if (running) void stop(signal);
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  try {
    running = await options.start();
  } catch (error) {
    logger.fatal({ err: error }, "could not start");
    process.exit(1);
  }
  if (signalled) return stop(signalled);
  options.onStarted?.(running);
}
