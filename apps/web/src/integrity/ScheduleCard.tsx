import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { cronExplanation } from "../admin/CronField";
import { Card } from "../components/Card";
import { QueryState } from "../components/QueryState";
import { trpc } from "../trpc";

export const settingsLink =
  "inline-flex items-center rounded-md bg-white px-3 py-2 text-sm font-semibold text-slate-700 shadow-sm ring-1 ring-slate-300 ring-inset " +
  "hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600";

/** When scheduled scans run, in words with their next runs; they are changed in the server settings. */
export function ScheduleCard() {
  const settings = useQuery(trpc.admin.settings.queryOptions(undefined, { staleTime: 0 }));
  return (
    <Card
      title="Scheduled scans"
      description="Administrators who want system events are told when a scheduled scan finds critical issues."
      footer={
        <Link to="/admin/settings#scans" className={settingsLink}>
          Change the schedule
        </Link>
      }
    >
      <QueryState query={settings} loading="Loading the schedule" error="Could not load the schedule">
        {(data) => (
          <dl className="flex flex-col gap-3 text-sm">
            {(
              [
                ["Quick scan", data.scanSchedule.quick],
                ["Full scan with storage, reference and health checks", data.scanSchedule.full],
              ] as const
            ).map(([label, expression]) => (
              <div key={label}>
                <dt className="font-medium text-slate-800">{label}</dt>
                <dd className="mt-0.5 text-slate-600">
                  {expression ? (
                    <>
                      <code className="font-mono text-xs break-all text-slate-900">{expression}</code> · {cronExplanation(expression)}
                    </>
                  ) : (
                    "Never."
                  )}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </QueryState>
    </Card>
  );
}
