import { useId } from "react";
import { observationTypes } from "@meridian/rules";
import { typeLabels } from "../labels";
import type { ObservationType } from "./draft";

/** What each type means to dispatch, in a sentence the picker shows beside it. */
const typeDescriptions: Record<ObservationType, string> = {
  flexible: "Whenever dispatch finds the target observable; no time window.",
  fixed_time: "At a set time: not before its start, and not after its end when it has one.",
  time_based: "Within a time window you choose: not before a start, not after an end, or both.",
  monitoring: "Repeats: back in the queue after each completed or failed run.",
  rise_to_set: "While the target is up: from when it rises above the minimum altitude until it sets.",
};

/** One radio per type, each with its description: arrow keys move between them, as in any radio group. */
export function TypePicker({ value, onChange, error }: { value: ObservationType; onChange(type: ObservationType): void; error?: string }) {
  const name = useId();
  return (
    <fieldset aria-describedby={error ? `${name}-error` : undefined}>
      <legend className="text-sm font-medium text-slate-700">Type</legend>
      <div className="mt-2 grid gap-2 sm:grid-cols-2">
        {observationTypes.map((type) => (
          <label
            key={type}
            className={`flex cursor-pointer items-start gap-3 rounded-md p-3 text-sm ring-1 ring-inset ${
              value === type ? "bg-indigo-50 ring-indigo-300" : "ring-slate-200 hover:bg-slate-50"
            }`}
          >
            <input
              type="radio"
              name={name}
              value={type}
              checked={value === type}
              onChange={() => onChange(type)}
              aria-labelledby={`${name}-${type}-label`}
              aria-describedby={`${name}-${type}`}
              className="mt-0.5 size-4 shrink-0 accent-indigo-600"
            />
            <span className="min-w-0">
              <span id={`${name}-${type}-label`} className="block font-medium text-slate-900">
                {typeLabels[type]}
              </span>
              <span id={`${name}-${type}`} className="block text-slate-500">
                {typeDescriptions[type]}
              </span>
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${name}-error`} className="mt-1.5 text-sm text-red-600">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
