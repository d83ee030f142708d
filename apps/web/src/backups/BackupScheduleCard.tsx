import { Link } from "react-router-dom";
import { cronExplanation } from "../admin/CronField";
import { Card } from "../components/Card";
import { settingsLink } from "../integrity/ScheduleCard";
import type { RouterOutputs } from "../organizations/types";

type Settings = RouterOutputs["admin"]["settings"];

/** When backups are taken on their own and how long they are kept; both are set in the server settings. */
export function BackupScheduleCard({ settings }: { settings: Settings | undefined }) {
  return (
    <Card
      title="Schedule and retention"
      footer={
        <Link to="/admin/settings#backups" className={settingsLink}>
          Change in server settings
        </Link>
      }
    >
      {settings ? (
        <dl className="grid gap-3 text-sm sm:grid-cols-2">
          <div>
            <dt className="font-medium text-slate-800">Scheduled backups</dt>
            <dd className="mt-0.5 text-slate-600">
              {settings.backupSchedule ? (
                <>
                  <code className="font-mono text-xs break-all text-slate-900">{settings.backupSchedule}</code> · {cronExplanation(settings.backupSchedule)}
                </>
              ) : (
                "None: backups are taken only by hand, above or with pnpm admin backup create."
              )}
            </dd>
          </div>
          <div>
            <dt className="font-medium text-slate-800">Kept</dt>
            <dd className="mt-0.5 text-slate-600">
              {settings.backupKeepDays} day{settings.backupKeepDays === 1 ? "" : "s"}, and always the newest {settings.backupKeepMin} usable backup
              {settings.backupKeepMin === 1 ? "" : "s"} and the newest verified one. Old backups are deleted after each scheduled backup, or with “Delete old
              backups”.
            </dd>
          </div>
        </dl>
      ) : (
        <p className="text-sm text-slate-500">Loading the schedule…</p>
      )}
    </Card>
  );
}
