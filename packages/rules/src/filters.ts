/**
 * Filters: what a plugin reports in `equipment.filters` and what an observation's exposures ask for
 * (docs/api-contract.md, "Network scheduling"). Names compare case-insensitively. An observatory
 * that never reported filters (null) restricts nothing. The scheduler decides eligibility with
 * these, the server refuses a submission with them, and the wizard offers and explains with them.
 */

/** The most filters one equipment report may name. */
export const MAX_REPORTED_FILTERS = 50;
/** The longest filter name a plugin may report: an exposure's filter is at most as long. */
export const FILTER_NAME_MAX_LENGTH = 40;

/** How a filter name compares: "Ha", "HA" and "ha" are one filter. */
export const filterKey = (name: string) => name.trim().toLowerCase();

/** The filters an observation's exposures ask for, each once (by `filterKey`), in the order first asked. */
export function filtersAskedBy(targets: ReadonlyArray<{ exposures: ReadonlyArray<{ filter: string }> }>): string[] {
  const seen = new Map<string, string>();
  for (const target of targets)
    for (const exposure of target.exposures) if (!seen.has(filterKey(exposure.filter))) seen.set(filterKey(exposure.filter), exposure.filter);
  return [...seen.values()];
}

/** The filters asked for that are not among those reported, each once; none when nothing was reported (`null`). */
export function filtersLacking(reported: ReadonlyArray<string> | null, asked: Iterable<string>): string[] {
  if (!reported) return [];
  const has = new Set(reported.map(filterKey));
  const lacking = new Map<string, string>();
  for (const filter of asked) if (!has.has(filterKey(filter)) && !lacking.has(filterKey(filter))) lacking.set(filterKey(filter), filter);
  return [...lacking.values()];
}

/** Whether an observatory with these reported filters (null: none reported) has every filter asked for. */
export const hasEveryFilter = (reported: ReadonlyArray<string> | null, asked: Iterable<string>) => filtersLacking(reported, asked).length === 0;

/** An observatory as the filter rules read it: its reported filters, null when it never reported any. */
export interface ObservatoryFilters {
  id: string;
  name: string;
  filters: ReadonlyArray<string> | null;
}

/** An exposure whose filter stands in the way of a submission, and the observatories that lack it. */
export interface UnavailableFilter {
  /** Its field, as the API names it: `targets.0.exposures.1.filter`. */
  path: string;
  filter: string;
  lackedBy: ObservatoryFilters[];
}

/**
 * The submission rule over the observatories an observation may run at: none stands in the way
 * when at least one of them has every filter it asks for (or no observatory is given). Otherwise
 * every exposure whose filter one of them lacks, with those that lack it, so the answer can point
 * at each field and name each observatory. With one observatory: each exposure whose filter it lacks.
 */
export function unavailableFilters(options: {
  targets: ReadonlyArray<{ exposures: ReadonlyArray<{ filter: string }> }>;
  observatories: ReadonlyArray<ObservatoryFilters>;
}): UnavailableFilter[] {
  const { targets, observatories } = options;
  const asked = filtersAskedBy(targets);
  if (observatories.length === 0 || observatories.some((observatory) => hasEveryFilter(observatory.filters, asked))) return [];
  const problems: UnavailableFilter[] = [];
  targets.forEach((target, targetIndex) =>
    target.exposures.forEach((exposure, exposureIndex) => {
      const lackedBy = observatories.filter((observatory) => !hasEveryFilter(observatory.filters, [exposure.filter]));
      if (lackedBy.length > 0) problems.push({ path: `targets.${targetIndex}.exposures.${exposureIndex}.filter`, filter: exposure.filter, lackedBy });
    }),
  );
  return problems;
}

/**
 * The filters a stored equipment report names, or null when it names none: a report stored before
 * `filters` was checked may hold something else there, which counts as none.
 */
export function reportedFilters(equipment: unknown): string[] | null {
  if (!equipment || typeof equipment !== "object") return null;
  const filters = (equipment as { filters?: unknown }).filters;
  if (!Array.isArray(filters) || filters.length === 0 || !filters.every((filter): filter is string => typeof filter === "string")) return null;
  return filters;
}
