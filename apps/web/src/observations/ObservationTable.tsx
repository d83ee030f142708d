import { Link } from "react-router-dom";
import { DataTable, td, Th } from "../components/Table";
import { formatShortDateTime } from "../lib/format";
import type { Observation } from "./labels";
import { SelectAllTh, SelectCell } from "./SelectionColumn";
import { StatusBadge } from "./StatusBadge";
import type { ObservationSelection } from "./useObservationSelection";

/** Observations with their live status; names link to the detail page. With `selection`, rows can be chosen for bulk actions. */
export function ObservationTable({
  items,
  observatoryName,
  selection,
}: {
  items: Observation[];
  observatoryName(id: string): string | undefined;
  selection?: ObservationSelection;
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
          <Th className="hidden md:table-cell">Priority</Th>
          <Th className="hidden md:table-cell">Changed</Th>
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
          <td className={`${td} hidden sm:table-cell`}>{observatoryName(observation.observatoryId) ?? "—"}</td>
          <td className={`${td} hidden md:table-cell`}>{observation.priority}</td>
          <td className={`${td} hidden text-slate-500 md:table-cell`}>{formatShortDateTime(observation.statusChangedAt)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
