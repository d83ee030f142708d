import { statuses, statusInfo } from "./labels";
import type { AnnouncementStatus } from "./types";

/** All / Active / Acknowledged / Expired / Cancelled: pressed buttons, one at a time. */
export function StatusFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: AnnouncementStatus | undefined;
  onChange(status: AnnouncementStatus | undefined): void;
}) {
  const options: Array<[AnnouncementStatus | undefined, string]> = [
    [undefined, "All"],
    ...statuses.map((status): [AnnouncementStatus, string] => [status, statusInfo[status].label]),
  ];
  return (
    // Separate pills that wrap onto more lines on a phone rather than running past the edge.
    <div role="group" aria-label={label} className="flex max-w-full flex-wrap gap-1.5">
      {options.map(([status, text]) => {
        const pressed = status === value;
        return (
          <button
            key={text}
            type="button"
            aria-pressed={pressed}
            onClick={() => onChange(status)}
            className={
              `rounded-full px-3 py-1 text-xs font-medium whitespace-nowrap ring-1 ring-inset ` +
              `focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${
                pressed ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50"
              }`
            }
          >
            {text}
          </button>
        );
      })}
    </div>
  );
}
