import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";
import type { BundledEntry } from "./entry-bundles";

/** The repository root: entry point paths are relative to it. */
const repoRoot = path.resolve(import.meta.dirname, "../..");

export interface NodeProcess {
  /** The script, or the name given, for messages. */
  name: string;
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `node --import tsx <script>` from the repository root, as its own process, with only PATH,
 * HOME, HOST=127.0.0.1, LOG_LEVEL=warn and a keep-alive of a minute from outside, then `env` (a variable given as undefined is left out).
 * For the entry points exactly as `pnpm start` runs them; `spawnEntry` starts the same code sooner.
 */
export function spawnTsx(script: string, env: Record<string, string | undefined>, name = script, args: string[] = []): NodeProcess {
  return spawnNode(["--import", "tsx", script, ...args], env, name);
}

/**
 * The server, worker or CLI from the run's bundle of its entry point (built by the global setup),
 * with the environment `spawnTsx` gives.
 */
export function spawnEntry(entry: BundledEntry, env: Record<string, string | undefined>, name: string = entry, args: string[] = []): NodeProcess {
  return spawnNode([inject("entryBundles")[entry], ...args], env, name);
}

function spawnNode(argv: string[], env: Record<string, string | undefined>, name: string): NodeProcess {
  const child = spawn(process.execPath, argv, {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? os.homedir(),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      // As test-server.ts: a test process busy past the 5 s default would send on a connection the server is closing.
      HTTP_KEEP_ALIVE_TIMEOUT_MS: "60000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { name, child, output: () => output, exited };
}

export const isRunning = (proc: NodeProcess) => proc.child.exitCode === null && proc.child.signalCode === null;

/**
 * Waits until the process has printed `pattern`; throws, with its output, if it exits first or
 * `timeoutMs` passes (90 s unless given: a first start may initialise an embedded PostgreSQL).
 */
export async function waitForOutput(proc: NodeProcess, pattern: RegExp, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(proc.output())) {
    if (!isRunning(proc))
      throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode}) before printing ${pattern}:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`${proc.name}: no ${pattern} within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SIGTERM, then the exit status; SIGKILL only if it still runs after `timeoutMs` (45 s unless given), which shows in the status. */
export async function terminate(proc: NodeProcess, timeoutMs = 45_000) {
  if (!isRunning(proc)) return proc.exited;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), timeoutMs);
  const result = await proc.exited;
  clearTimeout(timer);
  return result;
}
