// CPU seconds of whole process trees from /proc, so that a window's difference also counts the
// work of children that ended inside it (PostgreSQL backends, which their postmaster reaps).
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields after the parenthesised command (which may hold spaces): state is [0], ppid [1], utime [11]. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    if (Number(statFields(Number(entry))?.[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/**
 * User + system CPU seconds of `pid`, of the children it has reaped (cutime + cstime) and,
 * recursively, of its living children. Before and after a window, the difference is the tree's
 * work in it, as long as the root lives throughout.
 */
export function treeCpuSeconds(pid: number): number {
  return ownCpuSeconds(pid) + childrenOf(pid).reduce((sum, child) => sum + treeCpuSeconds(child), 0);
}

/** User + system CPU seconds of `pid` and of the children it has reaped, not of living ones. */
export function ownCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

/** CPU seconds the whole machine has been busy (every core, every process, the kernel's interrupts included; not idle or I/O wait). */
export function machineBusySeconds(): number {
  const [, user, nice, system, , , irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / ticksPerSecond;
}
