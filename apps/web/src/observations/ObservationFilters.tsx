import { useQuery } from "@tanstack/react-query";
import { ChevronDown, Download, Search, SlidersHorizontal } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { observationStatuses, type ObservationStatus } from "@meridian/rules";
import { useMe } from "../auth/useMe";
import { SelectField } from "../components/SelectField";
import { TextField } from "../components/TextField";
import { useDebouncedValue } from "../lib/useDebouncedValue";
import { trpc } from "../trpc";
import { observationStatusInfo } from "./labels";
import { exportHref, type ObservationView } from "./observation-view";

/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 300;

const linkClass =
  "inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-indigo-600 ring-1 ring-slate-200 " +
  "hover:bg-indigo-50 focus-visible:outline-2 focus-visible:outline-indigo-600";

/**
 * The filter bar of the observations page: search (name or target, run once typing pauses),
 * statuses, creation days, owner, project, observatory and (where the sortable columns are hidden)
 * the sort, and exports of exactly what it shows. `onChange(view, {replace})` writes the URL:
 * typing replaces the history entry, every other change adds one, so back undoes it.
 * On phones all but the search fold behind a Filters button that counts those set, so the
 * results start on the first screen.
 */
export function ObservationFilters({ view, onChange }: { view: ObservationView; onChange(view: ObservationView, options?: { replace: boolean }): void }) {
  const me = useMe();
  const projects = useQuery(trpc.projects.list.queryOptions(undefined));
  const observatories = useQuery(trpc.observatories.list.queryOptions({ limit: 200 }));
  const [text, setText] = useState(view.q);
  const settled = useDebouncedValue(text, SEARCH_DELAY_MS);
  // Back and forward change the URL under the box: show what it says.
  const [shownQ, setShownQ] = useState(view.q);
  if (view.q !== shownQ) {
    setShownQ(view.q);
    setText(view.q);
  }
  useEffect(() => {
    if (settled !== view.q && settled === text) onChange({ ...view, q: settled }, { replace: true });
    // Only a settled search writes; the view's other fields are written by their own controls.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- run when the typed text settles, not when the view or the handler change
  }, [settled]);
  const set = (fields: Partial<ObservationView>) => onChange({ ...view, ...fields });
  const ownerChoice = !view.ownerId ? "" : view.ownerId === me.data?.id ? "me" : "other";
  const [unfolded, setUnfolded] = useState(false);
  const foldedId = useId();
  const setCount = [view.statuses.length > 0, view.ownerId, view.from, view.to, view.projectId, view.observatoryId].filter(Boolean).length;
  // Shown in the bar's grid on wider screens; on phones only once unfolded.
  const folded = unfolded ? "contents" : "max-sm:hidden sm:contents";

  return (
    <section aria-label="Filters" className="mb-4 space-y-3">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <div className="relative sm:col-span-2">
          <TextField
            label="Search"
            type="search"
            placeholder="Name or target, e.g. M31"
            value={text}
            maxLength={200}
            onChange={(event) => setText(event.target.value)}
          />
          <Search aria-hidden="true" className="pointer-events-none absolute right-3 bottom-2.5 size-4 text-slate-400" />
        </div>
        <button
          type="button"
          aria-expanded={unfolded}
          aria-controls={foldedId}
          onClick={() => setUnfolded((current) => !current)}
          className={`${linkClass} justify-self-start sm:hidden`}
        >
          <SlidersHorizontal aria-hidden="true" className="size-4" />
          Filters{setCount > 0 ? ` (${setCount} set)` : ""}
          <ChevronDown aria-hidden="true" className={`size-4 ${unfolded ? "rotate-180" : ""}`} />
        </button>
        <div id={foldedId} className={folded}>
          <StatusPicker chosen={view.statuses} onChange={(statuses) => set({ statuses })} />
          <SelectField
            label="Owner"
            value={ownerChoice}
            onChange={(event) => set({ ownerId: event.target.value === "me" ? (me.data?.id ?? "") : event.target.value === "other" ? view.ownerId : "" })}
          >
            <option value="">Anyone</option>
            <option value="me">Me</option>
            {ownerChoice === "other" ? <option value="other">Another user (from the link)</option> : null}
          </SelectField>
          <TextField label="Created from" type="date" value={view.from} max={view.to || undefined} onChange={(event) => set({ from: event.target.value })} />
          <TextField label="Created to" type="date" value={view.to} min={view.from || undefined} onChange={(event) => set({ to: event.target.value })} />
          <SelectField label="Project" value={view.projectId} onChange={(event) => set({ projectId: event.target.value })}>
            <option value="">All projects</option>
            {projects.data?.items.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </SelectField>
          <SelectField label="Observatory" value={view.observatoryId} onChange={(event) => set({ observatoryId: event.target.value })}>
            <option value="">All observatories</option>
            {observatories.data?.items.map((observatory) => (
              <option key={observatory.id} value={observatory.id}>
                {observatory.name}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Sort by"
            className="md:hidden"
            value={view.sort}
            onChange={(event) => set({ sort: event.target.value as ObservationView["sort"] })}
          >
            <option value="-createdAt">Newest first</option>
            <option value="createdAt">Oldest first</option>
            <option value="-priority">Highest priority first</option>
            <option value="priority">Lowest priority first</option>
            <option value="-statusChangedAt">Changed most recently</option>
            <option value="statusChangedAt">Changed longest ago</option>
          </SelectField>
        </div>
      </div>
      <div className={`flex flex-wrap items-center gap-2 text-sm text-slate-500 ${unfolded ? "" : "max-sm:hidden"}`}>
        <span>Everything that matches:</span>
        <a href={exportHref(view, "csv")} download className={linkClass}>
          <Download aria-hidden="true" className="size-4" />
          Export CSV
        </a>
        <a href={exportHref(view, "json")} download className={linkClass}>
          <Download aria-hidden="true" className="size-4" />
          Export JSON
        </a>
      </div>
    </section>
  );
}

/** Statuses to show, any number: a disclosure of checkboxes (none chosen shows every status). */
function StatusPicker({ chosen, onChange }: { chosen: ObservationStatus[]; onChange(statuses: ObservationStatus[]): void }) {
  const summary =
    chosen.length === 0
      ? "Any status"
      : chosen.length <= 2
        ? chosen.map((status) => observationStatusInfo[status].label).join(", ")
        : `${chosen.length} statuses`;
  return (
    <div>
      <span className="block text-sm font-medium text-slate-700" id="status-filter-label">
        Status
      </span>
      <details className="group relative mt-1.5">
        <summary
          aria-describedby="status-filter-label"
          className={
            "flex cursor-pointer list-none items-center justify-between rounded-md bg-white px-3 py-2 text-sm text-slate-900 shadow-sm " +
            "ring-1 ring-slate-300 ring-inset focus-visible:ring-2 focus-visible:ring-indigo-600 focus-visible:outline-none"
          }
        >
          <span className="truncate">{summary}</span>
          <ChevronDown aria-hidden="true" className="size-4 text-slate-400 group-open:rotate-180" />
        </summary>
        <fieldset className="absolute z-20 mt-1 w-full min-w-56 rounded-md bg-white p-2 shadow-lg ring-1 ring-slate-200">
          <legend className="sr-only">Statuses to show</legend>
          {observationStatuses.map((status) => (
            <label key={status} className="flex items-center gap-2 rounded px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-50">
              <input
                type="checkbox"
                className="size-4 rounded border-slate-300 accent-indigo-600"
                checked={chosen.includes(status)}
                onChange={(event) => onChange(event.target.checked ? [...chosen, status] : chosen.filter((other) => other !== status))}
              />
              {observationStatusInfo[status].label}
            </label>
          ))}
        </fieldset>
      </details>
    </div>
  );
}
