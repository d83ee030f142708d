import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { cleanEnv, freePort, repoRoot } from "./lib.mjs";

/** What a forked bench process answers over IPC: `{ settled: id }` to `{ settle: id }`, `{ memory: id, ... }` to `{ memory: id }`. */
type Question = "settle" | "memory";
const answerKey = { settle: "settled", memory: "memory" } as const;

/**
 * A bench process of ours (bench/dispatch-server.ts, bench/bare-ws-peer.ts), forked with IPC from the repository root: its
 * address (and a server's database) once it says it listens, then questions answered by id (the server's idle state, the
 * process's memory). Any other message (the dispatch trace's marks) goes to `onMessage`.
 */
export async function forkBenchProcess(options: { script: string; env: Record<string, string>; execArgv?: string[]; onMessage?: (message: unknown) => void }) {
  const child: ChildProcess = fork(path.join(repoRoot, "bench", options.script), [], {
    cwd: repoRoot,
    execArgv: [...(options.execArgv ?? []), "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: cleanEnv(options.env),
  });
  const waiting = new Map<string, (answer: unknown) => void>();
  const listening = await new Promise<{ url: string; databaseUrl?: string }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${options.script} exited (${code}) before it listened`)));
    child.on("message", (message: Record<string, unknown>) => {
      if (typeof message.listening === "string")
        return resolve({ url: message.listening, databaseUrl: typeof message.databaseUrl === "string" ? message.databaseUrl : undefined });
      for (const question of Object.keys(answerKey) as Question[]) {
        const id = message[answerKey[question]];
        const answered = typeof id === "number" ? waiting.get(`${question}:${id}`) : undefined;
        if (answered) {
          waiting.delete(`${question}:${id}`);
          return answered(message);
        }
      }
      options.onMessage?.(message);
    });
  });
  let asked = 0;
  const ask = <Answer>(question: Question) =>
    new Promise<Answer>((resolve) => {
      const id = ++asked;
      waiting.set(`${question}:${id}`, (answer) => resolve(answer as Answer));
      child.send({ [question]: id });
    });
  const stop = async () => {
    child.kill("SIGTERM");
    if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
  };
  return { child, ...listening, ask, stop };
}

/** What bench/dispatch-server.ts runs Meridian with: as `pnpm start` does, on its own DATA_DIR and free ports, with one admin. */
export async function meridianServerEnv(options: { dataDir: string; admin: { email: string; password: string } }): Promise<Record<string, string>> {
  return {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    MERIDIAN_ROLE: "all",
    HOST: "127.0.0.1",
    PORT: String(await freePort()),
    DATA_DIR: options.dataDir,
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    ADMIN_EMAIL: options.admin.email,
    ADMIN_PASSWORD: options.admin.password,
  };
}
