import type { Executor } from "@meridian/db";
import { filtersLacking, reportedFilters, unavailableFilters, type ObservatoryFilters } from "@meridian/rules";
import { sql } from "drizzle-orm";
import { AppError } from "../../platform/errors";

/** The observatories' names and the filters their plugins last reported (null: none), in the order of the ids given. */
export async function observatoryFilters(options: { db: Executor; observatoryIds: ReadonlyArray<string> }): Promise<ObservatoryFilters[]> {
  const { db, observatoryIds } = options;
  if (observatoryIds.length === 0) return [];
  const rows = await db.execute<{ id: string; name: string; equipment: unknown }>(sql`
    select id, doc->>'name' as name, doc->'equipment' as equipment from observatories where id in ${[...observatoryIds]}`);
  const byId = new Map(rows.map((row) => [row.id, { id: row.id, name: row.name, filters: reportedFilters(row.equipment) }]));
  return observatoryIds.flatMap((id) => byId.get(id) ?? []);
}

const names = (filters: ReadonlyArray<string>) => filters.join(", ");
const quoted = (filters: ReadonlyArray<string>) => filters.map((filter) => `“${filter}”`).join(", ");
const either = (observatories: ReadonlyArray<ObservatoryFilters>) =>
  observatories.length === 1
    ? observatories[0]!.name
    : `${observatories
        .slice(0, -1)
        .map((one) => one.name)
        .join(", ")} or ${observatories.at(-1)!.name}`;

/**
 * 400 FILTER_NOT_AVAILABLE (docs/api-contract.md, "Network scheduling") when none of the
 * observatories the observation may run at has every filter its exposures ask for: one error at
 * each exposure's filter that stands in the way (`targets.N.exposures.M.filter`), naming the
 * observatories that lack it. An observatory that never reported filters has them all. With one
 * observatory, each filter it lacks is refused; with several, the observation is taken when one
 * of them has them all.
 */
export function refuseUnavailableFilters(options: {
  targets: ReadonlyArray<{ exposures: ReadonlyArray<{ filter: string }> }>;
  observatories: ReadonlyArray<ObservatoryFilters>;
}) {
  const problems = unavailableFilters(options);
  if (problems.length === 0) return;
  const single = options.observatories.length === 1 ? options.observatories[0]! : null;
  // Each filter once, however its case varies between exposures (`filterKey`).
  const lacking = filtersLacking(
    single?.filters ?? null,
    problems.map((problem) => problem.filter),
  );
  const detail = single
    ? `${single.name} has no ${quoted(lacking)} filter; it reports ${names(single.filters ?? [])}`
    : "None of the observatories this observation may run at has every filter it asks for";
  throw new AppError("FILTER_NOT_AVAILABLE", detail, {
    errors: problems.map((problem) => ({
      path: problem.path,
      message: single
        ? `${single.name} has no “${problem.filter}” filter: choose one of ${names(single.filters ?? [])}.`
        : `“${problem.filter}” is not among the filters of ${either(problem.lackedBy)}.`,
    })),
  });
}
