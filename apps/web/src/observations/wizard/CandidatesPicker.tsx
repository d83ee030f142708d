import { useId } from "react";
import { RadioGroup } from "../../components/RadioGroup";
import { CANDIDATES, type ObservationDraft } from "./draft";
import type { StepProps } from "./step-props";

/** An observatory the person may observe at, as the first step offers it: its name (and whether it is online), and the filters it reported. */
export interface ObservatoryChoice {
  id: string;
  label: string;
  /** null: its plugin reported none, so it takes any filter. */
  filters: ReadonlyArray<string> | null;
}

const filtersText = (filters: ReadonlyArray<string> | null) =>
  filters === null ? "Reports no filters: takes any." : filters.length === 0 ? "Reports no filter at all." : `Filters: ${filters.join(", ")}.`;

const whereChoices = [
  { value: "one", label: "Just one", description: "It runs at the observatory you choose." },
  { value: "any", label: "Any of several", description: "The network plan chooses where and when, among those you tick." },
] as const;

/**
 * One observatory or any of several: two radios (`RadioGroup`: arrow keys move between them). Going to several starts from the one
 * chosen; going back to one starts from the first ticked. Its labels never say "observatory": the select's label stays
 * the only one that does, as pages and tests find it by that word.
 */
export function WherePicker({ draft, edit }: Pick<StepProps, "draft" | "edit">) {
  const choose = (where: ObservationDraft["where"]) =>
    // Touches only the choice: what is still to tick is said once a box is ticked, or on Next.
    edit("where", (current) => ({
      ...current,
      where,
      ...(where === "any" && current.candidateObservatoryIds.length === 0 && current.observatoryId ? { candidateObservatoryIds: [current.observatoryId] } : {}),
      ...(where === "one" && !current.observatoryId ? { observatoryId: current.candidateObservatoryIds[0] ?? "" } : {}),
    }));
  return <RadioGroup legend="Where it may run" choices={whereChoices} value={draft.where} onChange={choose} />;
}

/**
 * The observatories it may run at: a checkbox for each one the person may observe at, with the filters it reported (its
 * exposures choose among them on the next step). 2 to 20 (the API's bounds), said as they are ticked; the order sent is
 * the order offered, whatever the order ticked.
 */
export function CandidatesPicker({
  draft,
  edit,
  errorOf,
  observatories,
}: Pick<StepProps, "draft" | "edit" | "errorOf"> & { observatories: ObservatoryChoice[] }) {
  const id = useId();
  const error = errorOf("candidateObservatoryIds");
  const ticked = new Set(draft.candidateObservatoryIds);
  const toggle = (observatoryId: string, on: boolean) =>
    edit("candidateObservatoryIds", (current) => {
      const now = new Set(current.candidateObservatoryIds);
      if (on) now.add(observatoryId);
      else now.delete(observatoryId);
      const offered = observatories.map((observatory) => observatory.id).filter((each) => now.has(each));
      // One no longer offered (a permission withdrawn meanwhile) stays last, for the API to name.
      return { ...current, candidateObservatoryIds: [...offered, ...[...now].filter((each) => !offered.includes(each))] };
    });
  const count = `${ticked.size} ticked (${CANDIDATES.min} to ${CANDIDATES.max}).`;
  return (
    <fieldset className="min-w-0 sm:col-span-2" aria-describedby={`${id}-count`}>
      <legend className="text-sm font-medium text-slate-700">Any of these</legend>
      <p id={`${id}-count`} className="text-sm text-slate-500">
        {count}
      </p>
      {error ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-red-600">
          {error}
        </p>
      ) : null}
      <ul className="mt-2 grid gap-2 sm:grid-cols-2">
        {observatories.map((observatory) => (
          <li key={observatory.id} className="flex items-start gap-3 rounded-md p-2 text-sm ring-1 ring-slate-200 ring-inset">
            <input
              id={`${id}-${observatory.id}`}
              type="checkbox"
              name="candidateObservatoryIds"
              value={observatory.id}
              checked={ticked.has(observatory.id)}
              onChange={(event) => toggle(observatory.id, event.target.checked)}
              aria-invalid={error ? true : undefined}
              aria-describedby={`${id}-${observatory.id}-filters${error ? ` ${id}-error` : ""}`}
              className="mt-0.5 size-4 shrink-0 rounded border-slate-300 accent-indigo-600"
            />
            <span className="min-w-0">
              <label htmlFor={`${id}-${observatory.id}`} className="font-medium break-words text-slate-800">
                {observatory.label}
              </label>
              <span id={`${id}-${observatory.id}-filters`} className="block break-words text-slate-500">
                {filtersText(observatory.filters)}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
