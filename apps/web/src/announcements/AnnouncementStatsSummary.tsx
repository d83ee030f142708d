import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { QueryState } from "../components/QueryState";
import { DataTable, td, Th } from "../components/Table";
import { trpc } from "../trpc";
import { scopeLabels } from "./labels";
import { scopePath } from "./scopeLinks";
import type { AnnouncementScope, AnnouncementStats } from "./types";

const scopeOrder: AnnouncementScope[] = ["system", "observatory", "organization", "project"];
const countKeys = ["active", "pendingAcknowledgments", "acknowledged", "expired", "cancelled"] as const;
const countLabels: Record<(typeof countKeys)[number], string> = {
  active: "Active",
  pendingAcknowledgments: "Pending",
  acknowledged: "Acknowledged",
  expired: "Expired",
  cancelled: "Cancelled",
};

type Counts = Pick<AnnouncementStats, (typeof countKeys)[number]>;

function totalsByScope(rows: AnnouncementStats[]): Array<[AnnouncementScope, Counts]> {
  return scopeOrder.map((scope) => {
    const totals: Counts = { active: 0, pendingAcknowledgments: 0, acknowledged: 0, expired: 0, cancelled: 0 };
    for (const row of rows) if (row.scope === scope) for (const key of countKeys) totals[key] += row[key];
    return [scope, totals];
  });
}

/** Server admins: one card per scope with its totals. */
function ScopeTotals({ rows }: { rows: AnnouncementStats[] }) {
  return (
    <ul aria-label="Announcements per scope" className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      {totalsByScope(rows).map(([scope, totals]) => (
        <li key={scope} aria-label={scopeLabels[scope]} className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
          <h3 className="text-sm font-semibold text-slate-900">{scopeLabels[scope]}</h3>
          <dl className="mt-2 grid grid-cols-2 gap-x-3 gap-y-1 text-sm">
            {countKeys.map((key) => (
              <div key={key} className="contents">
                <dt className="text-slate-500">{countLabels[key]}</dt>
                <dd className="text-right font-medium text-slate-900 tabular-nums">{totals[key].toLocaleString()}</dd>
              </div>
            ))}
          </dl>
        </li>
      ))}
    </ul>
  );
}

/** Everyone else: one row per observatory, organization or project they send for ("scoped dashboard"). */
function PerScope({ rows }: { rows: AnnouncementStats[] }) {
  return (
    <DataTable
      label="Announcements per place you manage"
      columns={
        <>
          <Th>Where</Th>
          {countKeys.map((key) => (
            <Th key={key} className={key === "active" || key === "pendingAcknowledgments" ? "" : "hidden sm:table-cell"}>
              {countLabels[key]}
            </Th>
          ))}
        </>
      }
    >
      {rows.map((row) => (
        <tr key={`${row.scope}:${row.scopeId}`}>
          <td className={td}>
            <span className="block text-xs text-slate-500">{scopeLabels[row.scope]}</span>
            {row.scope !== "system" && row.scopeId ? (
              <Link to={scopePath(row.scope, row.scopeId)} className="font-medium text-slate-900 hover:text-indigo-600">
                {row.scopeName ?? "—"}
              </Link>
            ) : (
              <span className="font-medium text-slate-900">System</span>
            )}
          </td>
          {countKeys.map((key) => (
            <td key={key} className={`${td} tabular-nums ${key === "active" || key === "pendingAcknowledgments" ? "" : "hidden sm:table-cell"}`}>
              {row[key].toLocaleString()}
            </td>
          ))}
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * The statistics above the announcement tables: totals per scope for server admins; for
 * observatory owners and administrators (and organization and project managers), per place.
 */
export function AnnouncementStatsSummary({ admin }: { admin: boolean }) {
  const stats = useQuery(trpc.announcements.stats.queryOptions(undefined, { staleTime: 0 }));
  return (
    <section aria-labelledby="announcement-stats-title" className="flex flex-col gap-3">
      <div>
        <h2 id="announcement-stats-title" className="text-base font-semibold text-slate-900">
          Statistics
        </h2>
        <p className="text-sm text-slate-500">Announcements by status; pending counts the acknowledgments active ones still await.</p>
      </div>
      <QueryState
        query={stats}
        loading="Loading statistics"
        error="Could not load the statistics"
        isEmpty={(data) => !admin && data.scopes.length === 0}
        empty={
          <p className="text-sm text-slate-500">
            None of the observatories, organizations or projects you manage has announcements yet. Send one from its page.
          </p>
        }
      >
        {(data) => (admin ? <ScopeTotals rows={data.scopes} /> : <PerScope rows={data.scopes} />)}
      </QueryState>
    </section>
  );
}
