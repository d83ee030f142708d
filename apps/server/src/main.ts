import { createLogger, loadEnvOrExit, runUntilSignalled } from "@meridian/config";
import { startServer, type RunningServer } from "./start-server";

/** `pnpm start`: server and worker in one process (MERIDIAN_ROLE=server for HTTP only). */
const env = loadEnvOrExit();
const logger = createLogger({ level: env.LOG_LEVEL, name: "meridian" });

const describe = (running: RunningServer) => {
  const { embedded, deps } = running.runtime;
  const postgres = embedded.postgres ? `embedded, data in ${env.DATA_DIR}/postgres (port ${env.EMBEDDED_POSTGRES_PORT})` : "external (DATABASE_URL)";
  const storage = embedded.objectStorage ? `embedded S3 at ${deps.storage.endpoint}, files in ${env.DATA_DIR}/objects` : `external ${env.S3_ENDPOINT}`;
  return [
    `Meridian listening on ${running.url} (SPA ${running.url}/app/, API reference ${running.url}/api/docs)`,
    `  role:            ${env.MERIDIAN_ROLE === "all" ? "server + worker" : "server only"}`,
    `  PostgreSQL:      ${postgres}`,
    `  object storage:  ${storage}`,
    `  mail:            ${env.SMTP_URL ? `SMTP ${new URL(env.SMTP_URL).host}` : `.eml files in ${env.DATA_DIR}/mail`}`,
  ].join("\n");
};

await runUntilSignalled({ logger, start: () => startServer({ env, logger }), onStarted: (running) => console.log(describe(running)) });
