import fs from "node:fs";
import { childrenOf, statusField } from "./lib.mjs";

/**
 * Peak memory of the processes a benchmark phase involves, sampled from /proc every 200 ms: this
 * process (Meridian, its threads included), PostgreSQL's server processes (the children of its
 * postmaster), and a peer tool by pid. A backend's RSS counts the shared buffers it has touched,
 * which every backend shares, so PostgreSQL is reported as the peak of its processes' private
 * memory summed, and apart from it the peak shared memory any one of them mapped.
 */
export interface MemoryPeaks {
  meridianRss: number;
  postgresPrivate: number;
  postgresShared: number;
  /** A peer tool's VmHWM (its own peak) at the last sample before it ended; 0 when none ran. */
  peerRss: number;
}

/** The postmaster of a backend (PostgreSQL's server processes are all its children). */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

export function sampleMemory(options: { postmaster: number | undefined; peer?: () => number | undefined }) {
  const peaks: MemoryPeaks = { meridianRss: 0, postgresPrivate: 0, postgresShared: 0, peerRss: 0 };
  const sample = () => {
    peaks.meridianRss = Math.max(peaks.meridianRss, process.memoryUsage().rss);
    if (options.postmaster !== undefined) {
      let privateBytes = 0;
      for (const pid of [options.postmaster, ...childrenOf(options.postmaster)]) {
        const rss = statusField(pid, "VmRSS");
        // The process ended between listing and reading.
        if (rss === undefined) continue;
        const shared = statusField(pid, "RssShmem") ?? 0;
        privateBytes += rss - shared;
        peaks.postgresShared = Math.max(peaks.postgresShared, shared);
      }
      peaks.postgresPrivate = Math.max(peaks.postgresPrivate, privateBytes);
    }
    const peer = options.peer?.();
    if (peer !== undefined) peaks.peerRss = Math.max(peaks.peerRss, statusField(peer, "VmHWM") ?? 0);
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop(): MemoryPeaks {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

/** The larger of each peak. */
export const maxPeaks = (a: MemoryPeaks, b: MemoryPeaks): MemoryPeaks => ({
  meridianRss: Math.max(a.meridianRss, b.meridianRss),
  postgresPrivate: Math.max(a.postgresPrivate, b.postgresPrivate),
  postgresShared: Math.max(a.postgresShared, b.postgresShared),
  peerRss: Math.max(a.peerRss, b.peerRss),
});
