import { Link } from "react-router-dom";
import { DataTable, EmptyRow, td, Th } from "../../components/Table";
import { zoneClock } from "../../lib/zone-time";
import { slotState, type NightPlan } from "./night-plan";

/** The plan in rows, the timeline's text alternative: start, end, observation, priority, owner and whether it runs now. */
export function PlanTable({ plan, onHighlight }: { plan: NightPlan; onHighlight(observationId: string | null): void }) {
  const zone = plan.timeZone;
  return (
    <DataTable
      label="Planned observations"
      stackOnPhone
      columns={
        <>
          <Th>Observation</Th>
          <Th>Start</Th>
          <Th>End</Th>
          <Th>Priority</Th>
          <Th>Owner</Th>
          <Th>State</Th>
        </>
      }
    >
      {plan.slots.length === 0 ? <EmptyRow columns={6}>Nothing planned for this night</EmptyRow> : null}
      {plan.slots.map((slot) => (
        <tr key={slot.observationId} onMouseEnter={() => onHighlight(slot.observationId)} onMouseLeave={() => onHighlight(null)}>
          <td className={td}>
            <Link
              to={`/observations/${slot.observationId}`}
              onFocus={() => onHighlight(slot.observationId)}
              onBlur={() => onHighlight(null)}
              className="font-medium text-slate-900 hover:text-indigo-600"
            >
              {slot.name}
            </Link>
          </td>
          <td className={td}>
            <time dateTime={slot.start}>{zoneClock(slot.start, zone)}</time>
          </td>
          <td className={td}>
            <span className="sm:hidden">to </span>
            <time dateTime={slot.end}>{zoneClock(slot.end, zone)}</time>
          </td>
          <td className={td}>
            <span className="sm:hidden">priority </span>
            {slot.priority}
          </td>
          <td className={td}>{slot.ownerName ?? "—"}</td>
          <td className={td}>{slotState(slot)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
