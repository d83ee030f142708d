import { filtersAskedBy, hasEveryFilter } from "@meridian/rules";
import type { SchedulingDoc } from "./inputs";

const asked = new WeakMap<SchedulingDoc, string[]>();

/** The filters the observation's exposures ask for, read once per document (a plan asks about each one many times). */
export function filtersOf(doc: SchedulingDoc): string[] {
  let filters = asked.get(doc);
  if (!filters) asked.set(doc, (filters = filtersAskedBy(doc.targets)));
  return filters;
}

/**
 * Whether an observatory that reported these filters (`equipment.filters`; null or absent when it
 * reported none, which holds nothing back) has every filter asked for, names compared
 * case-insensitively. The one test of dispatch, the queue, the night plan, the forecast and the
 * network plan (FILTER_MISSING).
 */
export const hasFilters = (reported: ReadonlyArray<string> | null | undefined, filters: ReadonlyArray<string>) => hasEveryFilter(reported ?? null, filters);
