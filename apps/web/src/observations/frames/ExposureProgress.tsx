import { Th, DataTable, td } from "../../components/Table";

/** One exposure line of the observation's targets, with how many of its frames arrived and were accepted. */
export interface ExposureLineProgress {
  targetName: string;
  filter: string;
  exposureSeconds: number;
  desired: number;
  acquired: number;
  accepted: number;
}

function remaining(line: ExposureLineProgress): string {
  const missing = line.desired - line.accepted;
  return missing <= 0 ? "Done" : `${missing} more to accept`;
}

/** How far each exposure line is: frames wanted, taken and accepted (frames matching no line count nowhere). */
export function ExposureProgress({ lines }: { lines: ExposureLineProgress[] }) {
  if (lines.length === 0) return <p className="text-sm text-slate-500">This observation asks for no exposures.</p>;
  return (
    <DataTable
      label="Progress per exposure line"
      stackOnPhone
      columns={
        <>
          <Th>Target</Th>
          <Th>Exposure</Th>
          <Th>Wanted</Th>
          <Th>Taken</Th>
          <Th>Accepted</Th>
          <Th>Left</Th>
        </>
      }
    >
      {lines.map((line, index) => (
        <tr key={index}>
          <td className={`${td} font-medium text-slate-900`} data-label="Target">
            {line.targetName}
          </td>
          <td className={td} data-label="Exposure">
            {line.filter} · {line.exposureSeconds} s
          </td>
          <td className={`${td} tabular-nums`} data-label="Wanted">
            <span aria-hidden="true" className="text-xs text-slate-600 sm:hidden">
              Wanted{" "}
            </span>
            {line.desired}
          </td>
          <td className={`${td} tabular-nums`} data-label="Taken">
            <span aria-hidden="true" className="text-xs text-slate-600 sm:hidden">
              Taken{" "}
            </span>
            {line.acquired}
          </td>
          <td className={`${td} tabular-nums`} data-label="Accepted">
            <span aria-hidden="true" className="text-xs text-slate-600 sm:hidden">
              Accepted{" "}
            </span>
            {line.accepted}
          </td>
          <td className={td} data-label="Left">
            {remaining(line)}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
