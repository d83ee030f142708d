/**
 * Answers a parent's `{ memory: n }` over IPC with this process's memory after two full garbage
 * collections (the process runs with `--expose-gc`): what it holds, not what it has yet to free.
 */
export interface MemoryReport {
  memory: number;
  heapUsed: number;
  external: number;
  rss: number;
}

export function answerMemoryQueries(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with --expose-gc");
  process.on("message", (message: { memory?: number }) => {
    if (message.memory === undefined) return;
    collect();
    collect();
    const usage = process.memoryUsage();
    process.send?.({ memory: message.memory, heapUsed: usage.heapUsed, external: usage.external, rss: usage.rss } satisfies MemoryReport);
  });
}
