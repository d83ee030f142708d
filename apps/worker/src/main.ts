import { createLogger, loadEnvOrExit, runUntilSignalled } from "@meridian/config";
import { startRuntime } from "@meridian/domain/platform";
import { startWorker } from "./start-worker";

/** `pnpm start:worker`: a worker process only, sharing the database with the servers. */
const env = loadEnvOrExit();
const logger = createLogger({ level: env.LOG_LEVEL, name: "meridian-worker" });

await runUntilSignalled({
  logger,
  async start() {
    const runtime = await startRuntime({ env, logger, kind: "worker" });
    try {
      const worker = await startWorker({ deps: runtime.deps, databaseUrl: runtime.databaseUrl, applicationName: runtime.applicationName });
      logger.info({ workerId: worker.workerId, embedded: runtime.embedded }, "Meridian worker running");
      return {
        async stop() {
          await worker.stop();
          await runtime.stop();
        },
      };
    } catch (error) {
      await runtime.stop();
      throw error;
    }
  },
});
