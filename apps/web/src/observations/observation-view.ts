import { observationStatuses, type ObservationStatus } from "@meridian/rules";

/** The list's sorts as the API names them; `-` first is descending. */
export type ObservationSortKey = "createdAt" | "priority" | "statusChangedAt";
export type ObservationSort = ObservationSortKey | `-${ObservationSortKey}`;
const DEFAULT_SORT: ObservationSort = "-createdAt";

/**
 * What the observations page shows, all of it in the URL's query so a view can be shared, reloaded
 * and walked with back and forward: `q`, `status` (comma list), `from` and `to` (days, both
 * included, in the browser's zone), `ownerId`, `projectId`, `observatoryId`, `sort`.
 */
export interface ObservationView {
  q: string;
  statuses: ObservationStatus[];
  from: string;
  to: string;
  ownerId: string;
  projectId: string;
  observatoryId: string;
  sort: ObservationSort;
}

const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d\d-\d\d$/.test(value);
const sorts: readonly string[] = ["createdAt", "priority", "statusChangedAt"].flatMap((key) => [key, `-${key}`]);

export function viewOf(params: URLSearchParams): ObservationView {
  const statuses = (params.get("status") ?? "")
    .split(",")
    .filter((status): status is ObservationStatus => (observationStatuses as readonly string[]).includes(status));
  const sort = params.get("sort") ?? DEFAULT_SORT;
  return {
    q: params.get("q") ?? "",
    statuses,
    from: isDay(params.get("from")) ? params.get("from")! : "",
    to: isDay(params.get("to")) ? params.get("to")! : "",
    ownerId: params.get("ownerId") ?? "",
    projectId: params.get("projectId") ?? "",
    observatoryId: params.get("observatoryId") ?? "",
    sort: sorts.includes(sort) ? (sort as ObservationSort) : DEFAULT_SORT,
  };
}

/** The URL query of a view: only what differs from the default, in a stable order. */
export function paramsOf(view: ObservationView): URLSearchParams {
  const params = new URLSearchParams();
  if (view.q.trim()) params.set("q", view.q);
  if (view.statuses.length > 0) params.set("status", observationStatuses.filter((status) => view.statuses.includes(status)).join(","));
  if (view.from) params.set("from", view.from);
  if (view.to) params.set("to", view.to);
  for (const key of ["ownerId", "projectId", "observatoryId"] as const) if (view[key]) params.set(key, view[key]);
  if (view.sort !== DEFAULT_SORT) params.set("sort", view.sort);
  return params;
}

/** The start of a day in the browser's zone, as the API takes instants. */
const startOfDay = (day: string, addDays = 0) => {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  return new Date(year, month - 1, date + addDays).toISOString();
};

/** The API's filter for a view: `to` is exclusive there, so the chosen last day runs to its end. */
export function filterOf(view: ObservationView) {
  return {
    ...(view.q.trim() ? { q: view.q.trim() } : {}),
    ...(view.statuses.length > 0 ? { status: view.statuses.join(",") } : {}),
    ...(view.from ? { from: startOfDay(view.from) } : {}),
    ...(view.to ? { to: startOfDay(view.to, 1) } : {}),
    ...(view.ownerId ? { ownerId: view.ownerId } : {}),
    ...(view.projectId ? { projectId: view.projectId } : {}),
    ...(view.observatoryId ? { observatoryId: view.observatoryId } : {}),
    ...(view.sort !== DEFAULT_SORT ? { sort: view.sort } : {}),
  };
}

/** The REST export of what the view shows (the session cookie authorises it). */
export const exportHref = (view: ObservationView, format: "csv" | "json") =>
  `/observations/export?${new URLSearchParams({ ...filterOf(view), format }).toString()}`;

export const isFiltered = (view: ObservationView) => Object.keys(filterOf({ ...view, sort: DEFAULT_SORT })).length > 0;
