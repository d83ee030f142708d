import { statuses, statusInfo } from "./labels";
import type { AnnouncementStatus } from "./types";

/** All / Active / Acknowledged / Expired / Cancelled: pressed buttons, one at a time. */
export function StatusFilter({ label, value, onChange }: { label: string; value: AnnouncementStatus | undefined; onChange(status: AnnouncementStatus | undefined): void }) {
  const options: Array<[AnnouncementStatus | undefined, string]> = [[undefined, "All"], ...statuses.map((status): [AnnouncementStatus, string] => [status, statusInfo[status].label])];
  return (
    <div role="group" aria-label={label} className="inline-flex max-w-full overflow-x-auto rounded-md shadow-sm ring-1 ring-slate-300 ring-inset">
      {options.map(([status, text], index) => {
        const pressed = status === value;
        return (
          <button
            key={text}
            type="button"
            aria-pressed={pressed}
            onClick={() => onChange(status)}
            className={`px-3 py-1.5 text-xs font-medium whitespace-nowrap focus-visible:z-10 focus-visible:outline-2 focus-visible:outline-indigo-600 ${index > 0 ? "border-l border-slate-300" : ""} ${
              pressed ? "bg-indigo-600 text-white" : "bg-white text-slate-700 hover:bg-slate-50"
            }`}
          >
            {text}
          </button>
        );
      })}
    </div>
  );
}
