import { Link } from "react-router-dom";
import { DataTable, td, Th } from "../components/Table";
import { Time } from "../components/Time";
import type { Observation } from "./labels";
import { StatusBadge } from "./StatusBadge";

/** Observations with their live status; names link to the detail page. */
export function ObservationTable({
  items,
  observatoryName,
  observatoryZone,
}: {
  items: Observation[];
  observatoryName(id: string): string | undefined;
  /** The observatory's time zone, in which its status changes are shown. */
  observatoryZone?(id: string): string | undefined;
}) {
  return (
    <DataTable
      label="Observations"
      columns={
        <>
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
          <td className={`${td} hidden text-slate-500 md:table-cell`}>
            <Time iso={observation.statusChangedAt} zone={observatoryZone?.(observation.observatoryId)} short />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
