import { createLogger, loadEnv } from "@meridian/config";
import { startRuntime } from "@meridian/domain/platform";
import { freePort } from "./lib.mjs";

/**
 * Meridian's runtime for an in-process benchmark over a throw-away `dataDir`: embedded PostgreSQL
 * and S3 on free ports (unless `settings` names a DATABASE_URL or S3_ENDPOINT), production mode,
 * warnings only.
 */
export async function startBenchRuntime(dataDir: string, settings: Record<string, string> = {}) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const env = loadEnv({
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    EMBEDDED_S3_PORT: String(await freePort()),
    SECRETS_KEY: "bench secrets key",
    ...settings,
  });
  return startRuntime({ env, logger: createLogger({ level: "warn" }), kind: "all" });
}
