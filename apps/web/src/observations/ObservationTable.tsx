import { Link } from "react-router-dom";
import { DataTable, td, Th } from "../components/Table";
import { Time } from "../components/Time";
import { homeObservatoryId, whereItRuns, type Observation } from "./labels";
import type { ObservationSort, ObservationSortKey } from "./observation-view";
import { SortableTh } from "./SortableTh";
import { SelectAllTh, SelectCell } from "./SelectionColumn";
import { StatusBadge } from "./StatusBadge";
import type { ObservationSelection } from "./useObservationSelection";

/** A heading that sorts the list when the table is given `sort`, else a plain one. */
const heading = (sort: TableSort | undefined, field: ObservationSortKey, label: string, className: string) =>
  sort ? (
    <SortableTh field={field} sort={sort.value} onSort={sort.onChange} className={className}>
      {label}
    </SortableTh>
  ) : (
    <Th className={className}>{label}</Th>
  );

export interface TableSort {
  value: ObservationSort;
  onChange(sort: ObservationSort): void;
}

/**
 * Observations with their live status; names link to the detail page. With `sort`, Priority,
 * Changed and Created sort the list; with `selection`, rows can be chosen for bulk actions.
 */
export function ObservationTable({
  items,
  observatoryName,
  sort,
  selection,
  observatoryZone,
}: {
  items: Observation[];
  observatoryName(id: string): string | undefined;
  sort?: TableSort;
  selection?: ObservationSelection;
  /** The observatory's time zone, in which an observation's times are shown (its status change, its submission). */
  observatoryZone?(id: string): string | undefined;
}) {
  return (
    <DataTable
      label="Observations"
      columns={
        <>
          {selection ? <SelectAllTh ids={items.map((item) => item.id)} selection={selection} /> : null}
          <Th>Name</Th>
          <Th>Status</Th>
          <Th className="hidden sm:table-cell">Observatory</Th>
          {heading(sort, "priority", "Priority", "hidden md:table-cell")}
          {heading(sort, "statusChangedAt", "Changed", "hidden md:table-cell")}
          {heading(sort, "createdAt", "Created", "hidden lg:table-cell")}
        </>
      }
    >
      {items.map((observation) => (
        <tr key={observation.id} className="hover:bg-slate-50" data-observation-id={observation.id}>
          {selection ? <SelectCell id={observation.id} name={observation.name} selection={selection} /> : null}
          <td className={td}>
            <Link to={`/observations/${observation.id}`} className="font-medium text-slate-900 hover:text-indigo-600">
              {observation.name}
            </Link>
            <p className="text-xs text-slate-500">{observation.targets.map((target) => target.name).join(", ")}</p>
          </td>
          <td className={td}>
            <StatusBadge status={observation.status} />
          </td>
          <td className={`${td} hidden sm:table-cell`}>{whereItRuns(observation, observatoryName) ?? "—"}</td>
          <td className={`${td} hidden md:table-cell`}>{observation.priority}</td>
          <td className={`${td} hidden text-slate-500 md:table-cell`}>
            <Time iso={observation.statusChangedAt} zone={observatoryZone?.(homeObservatoryId(observation))} short />
          </td>
          <td className={`${td} hidden text-slate-500 lg:table-cell`}>
            <Time iso={observation.createdAt} zone={observatoryZone?.(homeObservatoryId(observation))} short />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
