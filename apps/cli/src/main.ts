import { createLogger, loadEnvOrExit, quietAwsSdkNodeVersionWarning } from "@meridian/config";
import { hasEmbeddedCluster } from "@meridian/db";
import { AppError, startRuntime, type Runtime } from "@meridian/domain/platform";
import { buildProgram, describeFailure, exitCodeOf } from "./program";
import { processOutput } from "./output";

/**
 * `pnpm admin <command>`: administration from a shell, against DATABASE_URL or the embedded data
 * folder (shared with a running server, as a worker shares it). Exit codes: 0 done, 1 failed,
 * 2 bad usage or input, 3 a conflict (a scan running, a document changed), 4 not found.
 */
quietAwsSdkNodeVersionWarning();
const env = loadEnvOrExit();
const logger = createLogger({ level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, name: "meridian-admin" });
let runtime: Runtime | undefined;
const program = buildProgram({
  output: processOutput,
  newAdminPassword: env.NEW_ADMIN_PASSWORD,
  openDeps: async ({ mayCreate = false } = {}) => {
    // A mistyped or empty DATA_DIR would otherwise become a new, empty server, and the command would report on nothing.
    if (!runtime && !env.DATABASE_URL && !mayCreate && !(await hasEmbeddedCluster(env.DATA_DIR)))
      throw new AppError(
        "VALIDATION_FAILED",
        `No Meridian data in ${env.DATA_DIR}: set DATA_DIR to the server's data folder, or DATABASE_URL to its database. ` +
          "Only create-admin starts a new data folder.",
      );
    runtime ??= await startRuntime({ env, logger, kind: "admin", applicationName: "meridian-admin" });
    return runtime.deps;
  },
});

let code = 0;
try {
  await program.parseAsync(process.argv);
} catch (error) {
  code = exitCodeOf(error);
  if (code !== 0 && !(error instanceof Error && error.name === "CommanderError")) process.stderr.write(describeFailure(error));
} finally {
  await runtime?.stop();
}
process.exit(code);
