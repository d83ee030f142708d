/**
 * bench/dispatch-latency.ts's server: Meridian as `pnpm start` runs it (server and worker in one
 * process, production mode), started here so that this process can subscribe to the dispatch
 * trace (node:diagnostics_channel works within a process) and pass each mark to the parent over
 * IPC. Prints its address, as JSON, once it listens.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import { createLogger, loadEnv } from "@meridian/config";
import { DISPATCH_TRACE_CHANNEL, type DispatchMark } from "@meridian/domain";
import { startServer } from "@meridian/server";

const env = loadEnv(process.env);
diagnosticsChannel.subscribe(DISPATCH_TRACE_CHANNEL, (mark) => process.send?.(mark as DispatchMark));
const running = await startServer({ env, logger: createLogger({ level: env.LOG_LEVEL, name: "meridian" }) });
process.send?.({ listening: running.url });
process.once("SIGTERM", () => void running.stop().then(() => process.exit(0)));
