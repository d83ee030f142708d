import { quietAwsSdkNodeVersionWarning } from "@meridian/config";
import { runCli } from "./run-cli";

/** `pnpm admin <command>`: administration from a shell (run-cli.ts) configured by the process's environment, exiting with the command's code. */
quietAwsSdkNodeVersionWarning();
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  isTerminal: Boolean(process.stderr.isTTY),
});
process.exit(code);
