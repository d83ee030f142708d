import { ChartColumn, ChevronRight, DatabaseBackup, DatabaseZap, ListChecks, SlidersHorizontal, UsersRound, type LucideIcon } from "lucide-react";
import { Link } from "react-router-dom";
import { ObservationCleanupCard } from "../admin/ObservationCleanupCard";
import { PageHeader } from "../components/PageHeader";
import { useDocumentTitle } from "../lib/document-title";

/** Each administration feature adds its entry here (and to the navigation). */
const sections: Array<{ title: string; description: string; icon: LucideIcon; to: string }> = [
  { title: "Users", description: "Search accounts, disable or enable them, and choose the server administrators.", icon: UsersRound, to: "/admin/users" },
  {
    title: "Server settings",
    description: "Minimum plugin version, heartbeat timeout, when observations count as stuck, and the schedules of scans and backups.",
    icon: SlidersHorizontal,
    to: "/admin/settings",
  },
  {
    title: "Database integrity",
    description: "Scan documents, references and stored files; triage what is found and repair it, one issue or in bulk.",
    icon: DatabaseZap,
    to: "/admin/integrity",
  },
  {
    title: "Backup management",
    description: "Create verified backups, restore one, and delete old ones; schedule them and choose how long they are kept in the server settings.",
    icon: DatabaseBackup,
    to: "/admin/backups",
  },
  {
    title: "Jobs",
    description: "Long work such as backups, restores, scans and announcement emails: follow its progress and result, and cancel a job that is stuck.",
    icon: ListChecks,
    to: "/admin/jobs",
  },
  {
    title: "Analytics",
    description: "Observatories, observations, users, organizations, success rate and storage, with charts of the last 30 days.",
    icon: ChartColumn,
    to: "/admin/analytics",
  },
];

export function AdministrationPage() {
  useDocumentTitle("Administration");
  return (
    <>
      <PageHeader title="Administration" description="Run this Meridian server: its accounts, settings and data." />
      <ul aria-label="Administration sections" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {sections.map(({ title, description, icon: Icon, to }) => (
          <li key={to}>
            <Link
              to={to}
              className={
                "flex h-full items-start gap-4 rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200 " +
                "transition-colors hover:ring-indigo-300 focus-visible:outline-2 " +
                "focus-visible:outline-indigo-600"
              }
            >
              <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
                <Icon aria-hidden="true" className="size-5" />
              </span>
              <span className="min-w-0 flex-1">
                <span className="block text-base font-semibold text-slate-900">{title}</span>
                <span className="mt-1 block text-sm text-slate-500">{description}</span>
              </span>
              <ChevronRight aria-hidden="true" className="mt-2 size-5 shrink-0 text-slate-400" />
            </Link>
          </li>
        ))}
      </ul>
      <h2 className="mt-8 mb-3 text-base font-semibold text-slate-900">Data</h2>
      <ObservationCleanupCard />
    </>
  );
}
