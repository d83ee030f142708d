import { createLogger, EnvError, loadEnv } from "@meridian/config";
import { startServer } from "./start-server";

/** `pnpm start`: server and worker in one process (MERIDIAN_ROLE=server for HTTP only). */
let env;
try {
  env = loadEnv();
} catch (error) {
  if (error instanceof EnvError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
const logger = createLogger({ level: env.LOG_LEVEL, name: "meridian" });
const running = await startServer({ env, logger });

const parts = [
  `Meridian listening on ${running.url} (SPA ${running.url}/app/, API reference ${running.url}/api/docs)`,
  `  role:            ${env.MERIDIAN_ROLE === "all" ? "server + worker" : "server only"}`,
  `  PostgreSQL:      ${running.runtime.embedded.postgres ? `embedded, data in ${env.DATA_DIR}/postgres (port ${env.EMBEDDED_POSTGRES_PORT})` : "external (DATABASE_URL)"}`,
  `  object storage:  ${running.runtime.embedded.objectStorage ? `embedded S3 at ${running.runtime.deps.storage.endpoint}, files in ${env.DATA_DIR}/objects` : `external ${env.S3_ENDPOINT}`}`,
  `  mail:            ${env.SMTP_URL ? `SMTP ${new URL(env.SMTP_URL).host}` : `.eml files in ${env.DATA_DIR}/mail`}`,
];
console.log(parts.join("\n"));

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  const forced = setTimeout(() => {
    logger.error("shutdown took too long; exiting");
    process.exit(1);
  }, 30_000);
  forced.unref();
  await running.stop();
  logger.info("stopped");
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
