import { createLogger, EnvError, loadEnv } from "@meridian/config";
import { hasEmbeddedCluster } from "@meridian/db";
import { AppError, startRuntime, type Runtime } from "@meridian/domain/platform";
import { buildProgram, describeFailure, exitCodeOf } from "./program";
import { outputTo, type Stream } from "./output";

export interface CliOptions {
  /** Results (tables, JSON) and the log. */
  stdout: Stream;
  /** Messages: refusals, failures, usage. */
  stderr: Stream;
  /** Where the configuration comes from (DATABASE_URL or DATA_DIR, S3_*, SECRETS_KEY, NEW_ADMIN_PASSWORD...); the process's environment unless given. */
  env?: Record<string, string | undefined>;
  /** Whether a person watches stderr: then long commands draw a progress bar there. */
  isTerminal?: boolean;
}

/**
 * `pnpm admin <args>` as a function: runs one command to its end and answers its exit code, 0 done,
 * 1 failed, 2 bad usage or input (a bad configuration too), 3 a conflict (a scan running, a document
 * changed), 4 not found. The runtime (database and storage, against DATABASE_URL or the embedded
 * data folder, shared with a running server as a worker shares it) opens only when a command needs
 * it and closes before the answer. `main.ts` runs it on the process's arguments and exits with its code;
 * the tests run it in their own process.
 */
export async function runCli(args: string[], options: CliOptions): Promise<number> {
  let env;
  try {
    env = loadEnv(options.env);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    options.stderr.write(`${error.message}\n`);
    return 2;
  }
  const logger = createLogger({ level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, name: "meridian-admin", destination: options.stdout });
  let runtime: Runtime | undefined;
  const program = buildProgram({
    output: outputTo(options.stdout, options.stderr, options.isTerminal ?? false),
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
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    code = exitCodeOf(error);
    if (code !== 0 && !(error instanceof Error && error.name === "CommanderError")) options.stderr.write(describeFailure(error));
  } finally {
    await runtime?.stop();
  }
  return code;
}
