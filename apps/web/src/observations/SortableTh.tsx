import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import type { ReactNode } from "react";
import type { ObservationSort, ObservationSortKey } from "./observation-view";

const th = "px-4 py-2 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase whitespace-nowrap";

/**
 * A column heading that sorts the list: a button inside the heading (so Tab reaches it and Enter or
 * Space presses it), `aria-sort` on the sorted column. The first press sorts highest or newest
 * first, the next turns the order round.
 */
export function SortableTh({
  field,
  sort,
  onSort,
  className,
  children,
}: {
  field: ObservationSortKey;
  sort: ObservationSort;
  onSort(sort: ObservationSort): void;
  className?: string;
  children: ReactNode;
}) {
  const direction = sort === field ? "ascending" : sort === `-${field}` ? "descending" : undefined;
  const Icon = direction === "ascending" ? ArrowUp : direction === "descending" ? ArrowDown : ArrowUpDown;
  return (
    <th scope="col" aria-sort={direction} className={className ? `${th} ${className}` : th}>
      <button
        type="button"
        onClick={() => onSort(direction === "descending" ? field : `-${field}`)}
        className={
          "-mx-2 inline-flex items-center gap-1 rounded px-2 py-1 uppercase hover:bg-slate-100 hover:text-slate-700 " +
          `focus-visible:outline-2 focus-visible:outline-indigo-600 ${direction ? "text-slate-800" : ""}`
        }
      >
        {children}
        <Icon aria-hidden="true" className="size-3.5" />
      </button>
    </th>
  );
}
