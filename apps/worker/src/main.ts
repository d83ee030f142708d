import { createLogger, loadEnv } from "@meridian/config";
import { startRuntime } from "@meridian/domain";
import { startWorker } from "./start-worker";

/** `pnpm start:worker`: a worker process only, sharing the database with the servers. */
const env = loadEnv();
const logger = createLogger({ level: env.LOG_LEVEL, name: "meridian-worker" });
const runtime = await startRuntime({ env, logger, poolSize: 5 });
const worker = await startWorker({ deps: runtime.deps, databaseUrl: runtime.databaseUrl });
logger.info({ workerId: worker.workerId, embedded: runtime.embedded }, "Meridian worker running");

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping worker");
  await worker.stop();
  await runtime.stop();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
