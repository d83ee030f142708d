/**
 * The server of bench/dispatch-latency.ts, bench/observatory-connections.ts and
 * bench/held-queue-submissions.ts: Meridian as `pnpm start` runs it (server and worker in one
 * process, production mode), started here so that this process can subscribe to the dispatch
 * trace (node:diagnostics_channel works within a process) and pass each mark to the parent over
 * IPC. Sends its address and its database's, once it listens. Asked to settle, it answers once no job runs
 * and none but an email is due (the previous sample's dispatch done), so that each sample starts on
 * an idle server. A recipient's next email waits for the worker's poll (up to 2 s: graphile-worker
 * looks for the next job before the last one's completion has freed the recipient's queue), so
 * waiting for those would make a sample last seconds; they may run during the next one.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import { createLogger, loadEnv } from "@meridian/config";
import { DISPATCH_TRACE_CHANNEL, type DispatchMark } from "@meridian/domain/observations";
import { startServer } from "@meridian/server";
import { sql } from "drizzle-orm";
import { answerMemoryQueries } from "./memory-probe";

const env = loadEnv(process.env);
// bench/observatory-connections.ts starts this server with --expose-gc and asks for its memory.
if ("gc" in globalThis) answerMemoryQueries();
diagnosticsChannel.subscribe(DISPATCH_TRACE_CHANNEL, (mark) => process.send?.(mark as DispatchMark));
const running = await startServer({ env, logger: createLogger({ level: env.LOG_LEVEL, name: "meridian" }) });
process.send?.({ listening: running.url, databaseUrl: running.runtime.databaseUrl });

async function settle() {
  for (;;) {
    const [row] = await running.runtime.deps.db.execute<{ due: number }>(sql`
      select count(*)::int as due from graphile_worker.jobs
       where locked_at is not null or (run_at <= now() and attempts < max_attempts and task_identifier <> 'send_email')`);
    if (row?.due === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
process.on("message", (message: { settle?: number }) => {
  if (message.settle !== undefined) void settle().then(() => process.send?.({ settled: message.settle }));
});
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
