import { useEffect, useRef } from "react";
import { CircleCheck, CircleX } from "lucide-react";
import { rowOutcome } from "./bulk-results";
import type { ObservationSelection } from "./useObservationSelection";

const box = "size-4 rounded border-slate-300 accent-indigo-600";

/** The selection column's heading: one box for every row shown (mixed while some are). */
export function SelectAllTh({ ids, selection }: { ids: readonly string[]; selection: ObservationSelection }) {
  const ref = useRef<HTMLInputElement>(null);
  const count = ids.filter((id) => selection.selected.has(id)).length;
  const all = ids.length > 0 && count === ids.length;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  return (
    <th scope="col" className="w-10 px-3 py-3 text-center">
      <input
        ref={ref}
        type="checkbox"
        className={box}
        aria-label="Select every observation shown"
        checked={all}
        disabled={ids.length === 0}
        onChange={(event) => selection.setAll(ids, event.target.checked)}
      />
    </th>
  );
}

/** A row's box, and once a bulk action ran, what became of this row (its words for screen readers and on hover). */
export function SelectCell({ id, name, selection }: { id: string; name: string; selection: ObservationSelection }) {
  const result = selection.outcome?.results.get(id);
  const words = result && selection.outcome ? rowOutcome(selection.outcome.action, result) : null;
  return (
    <td className="w-10 px-3 py-3 align-middle">
      <span className="flex items-center gap-1.5">
        <input
          type="checkbox"
          className={box}
          aria-label={`Select ${name}`}
          checked={selection.selected.has(id)}
          onChange={(event) => selection.toggle(id, event.target.checked)}
        />
        {result ? (
          <span data-bulk-result={result.ok ? "ok" : (result.code ?? "failed")} title={result.detail ?? words ?? undefined}>
            {result.ok ? (
              <CircleCheck aria-hidden="true" className="size-4 text-emerald-600" />
            ) : (
              <CircleX aria-hidden="true" className="size-4 text-red-600" />
            )}
            <span className="sr-only">{words}</span>
          </span>
        ) : null}
      </span>
    </td>
  );
}
