import { createLogger, loadEnvOrExit } from "@meridian/config";
import { startRuntime, type Runtime } from "@meridian/domain";
import { buildProgram, exitCodeOf } from "./program";
import { processOutput } from "./output";

/**
 * `pnpm admin <command>`: administration from a shell, against DATABASE_URL or the embedded data
 * folder (shared with a running server, as a worker shares it). Exit codes: 0 done, 1 failed,
 * 2 bad usage or input, 3 a conflict (a scan running, a document changed), 4 not found.
 */
const env = loadEnvOrExit();
const logger = createLogger({ level: env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, name: "meridian-admin" });
let runtime: Runtime | undefined;
const program = buildProgram({
  output: processOutput,
  newAdminPassword: env.NEW_ADMIN_PASSWORD,
  openDeps: async () => {
    runtime ??= await startRuntime({ env, logger, poolSize: 4, applicationName: "meridian-admin" });
    return runtime.deps;
  },
});

let code = 0;
try {
  await program.parseAsync(process.argv);
} catch (error) {
  code = exitCodeOf(error);
  if (code !== 0 && !(error instanceof Error && error.name === "CommanderError"))
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await runtime?.stop();
}
process.exit(code);
