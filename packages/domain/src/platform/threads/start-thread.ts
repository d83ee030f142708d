import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Where a thread starts: tsx's require hook, then the thread's module. Node 20 runs no module
 * hooks (`--import tsx`, module.register) in worker threads, so the thread's TypeScript is
 * compiled through require instead, whether or not the parent process runs under tsx.
 */
const BOOTSTRAP = `
const { workerData } = require("node:worker_threads");
require(workerData.tsx);
require(workerData.entry);
`;

const require = createRequire(import.meta.url);

/** Starts a worker thread running a TypeScript module; it reads `data` as `workerData.data`. */
export function startTypeScriptThread({ entry, data }: { entry: URL; data?: unknown }): Worker {
  return new Worker(BOOTSTRAP, { eval: true, workerData: { tsx: require.resolve("tsx/cjs"), entry: fileURLToPath(entry), data } });
}
