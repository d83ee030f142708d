import type { Executor, ObservatoryDoc, StoredDocument } from "@meridian/db";
import { HOUR_MS, usedMs } from "./usage";

/** What is left of a project's allocation at an observatory now, and when more becomes available (its period's start), if known. */
export interface Allowance {
  leftMs: number;
  until: Date | null;
}

/**
 * Each allocated project's allowance at the observatory at `now`: its hours less what it used in
 * the period; before the period starts or after it ends, nothing (a project with an allocation
 * observes within its period). Projects without an allocation are absent: unlimited.
 */
export async function allowancesAt(options: { db: Executor; observatory: StoredDocument<ObservatoryDoc>; now: Date }): Promise<Map<string, Allowance>> {
  const { db, observatory, now } = options;
  const allowances = new Map<string, Allowance>();
  for (const allocation of observatory.doc.allocations ?? []) {
    const start = new Date(allocation.periodStart);
    const end = new Date(allocation.periodEnd);
    if (now < start) allowances.set(allocation.projectId, { leftMs: 0, until: start });
    else if (now >= end) allowances.set(allocation.projectId, { leftMs: 0, until: null });
    else {
      const used = await usedMs({ db, observatoryId: observatory.id, projectId: allocation.projectId, from: start, to: end, now });
      allowances.set(allocation.projectId, { leftMs: Math.max(0, allocation.hours * HOUR_MS - used), until: null });
    }
  }
  return allowances;
}
