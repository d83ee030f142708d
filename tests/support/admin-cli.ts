import os from "node:os";
import { runCli } from "@meridian/cli";
import { spawnEntry } from "./node-process";
import type { TestServer } from "./test-server";

export interface AdminCliRun {
  code: number | null;
  /** Everything it printed, stdout and stderr together. */
  output: string;
  /** The JSON it printed (--json), from its first bracket. */
  json: () => Record<string, unknown>;
}

/** The environment that puts the CLI on the test server's database and bucket; `env` adds to it (undefined removes). */
function cliEnv(server: TestServer, env: Record<string, string | undefined>) {
  const { storage } = server.server.runtime.deps;
  return {
    DATABASE_URL: server.databaseUrl,
    S3_ENDPOINT: storage.endpoint,
    S3_BUCKET: storage.bucket,
    S3_ACCESS_KEY_ID: storage.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: storage.credentials.secretAccessKey,
    S3_FORCE_PATH_STYLE: "true",
    SECRETS_KEY: "test secrets key shared by every process of this run",
    ...env,
  };
}

const ranWith = (code: number | null, output: string): AdminCliRun => ({
  code,
  output,
  json: () => JSON.parse(output.slice(output.search(/[[{]/))) as Record<string, unknown>,
});

/** `pnpm admin ...args` against the test server's database and bucket, as a process of its own (the run's bundle of its entry), to its exit. */
export async function spawnAdminCli(server: TestServer, args: string[], env: Record<string, string | undefined> = {}): Promise<AdminCliRun> {
  const proc = spawnEntry("cli", cliEnv(server, env) as Record<string, string>, `admin ${args.join(" ")}`, args);
  const { code } = await proc.exited;
  return ranWith(code, proc.output());
}

/**
 * The same command run in this process (`runCli`, what the binary's main runs), with the environment
 * a spawned one gets (node-process.ts) and its stdout and stderr caught together.
 */
export async function runAdminCli(server: TestServer, args: string[], env: Record<string, string | undefined> = {}): Promise<AdminCliRun> {
  let output = "";
  const caught = { write: (text: string) => (output += text) };
  const source = { PATH: process.env.PATH, HOME: process.env.HOME ?? os.homedir(), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...cliEnv(server, env) };
  const code = await runCli(args, { stdout: caught, stderr: caught, env: source });
  return ranWith(code, output);
}
