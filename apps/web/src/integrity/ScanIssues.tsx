import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Download, ShieldCheck } from "lucide-react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { SelectField } from "../components/SelectField";
import { ActionsCell, DataTable, HeadingsWithActions, td } from "../components/Table";
import { formatDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { BulkRepair } from "./BulkRepair";
import { IssueDrawer } from "./IssueDrawer";
import { exportUrl, isRunning, issueTypes, severities, severityTone, typeLabel, type Issue, type IssueFilter } from "./labels";
import { ScanProgress } from "./ScanProgress";

const PAGE_SIZE = 50;
const linkButton =
  "inline-flex items-center gap-1.5 rounded-md bg-white px-3 py-2 text-sm font-medium text-slate-700 shadow-sm ring-1 ring-slate-300 " +
  "hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600";

/**
 * One scan: its summary, the issues most severe first, filtered (the filters are the page's, kept
 * in its URL) with counts per value, each issue's detail, repair and export.
 */
export function ScanIssues({ scanId, filter, onFilter }: { scanId: string; filter: IssueFilter; onFilter(filter: IssueFilter): void }) {
  const scan = useQuery({
    ...trpc.integrity.scan.queryOptions({ id: scanId }, { staleTime: 0 }),
    refetchInterval: (query) => (query.state.data && !isRunning(query.state.data) ? false : 2000),
  });
  return (
    <QueryState query={scan} loading="Loading the scan" error="Could not load the scan">
      {(data) =>
        isRunning(data) ? (
          <section aria-label="Scan under way" className="rounded-lg bg-white p-5 shadow-sm ring-1 ring-slate-200">
            <ScanProgress scan={data} />
          </section>
        ) : (
          <Issues scanId={scanId} finishedAt={data.finishedAt} failed={data.status === "failed" ? data.error : null} filter={filter} setFilter={onFilter} />
        )
      }
    </QueryState>
  );
}

function Issues({
  scanId,
  finishedAt,
  failed,
  filter,
  setFilter,
}: {
  scanId: string;
  finishedAt: string | null;
  failed: string | null;
  filter: IssueFilter;
  setFilter(filter: IssueFilter): void;
}) {
  const [open, setOpen] = useState<Issue | null>(null);
  const input = { id: scanId, limit: PAGE_SIZE, ...filter };
  const { query, items } = useCursorPages(trpc.integrity.issues.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.integrity.issues.query(pageInput(input, cursor), { signal }),
  );
  const counts = query.data?.pages[0]?.counts;
  const countOf = (facet: string, value: string) => counts?.[facet as keyof typeof counts]?.[value] ?? 0;
  const fixable = query.data?.pages[0]?.openAutoFixable ?? 0;
  const select = (key: keyof IssueFilter, label: string, values: readonly string[], name: (value: string) => string = (value) => value) => (
    <SelectField
      label={label}
      value={filter[key] ?? ""}
      // The options are exactly the filter's values, so the select cannot hold anything else.
      onChange={(event) => setFilter({ ...filter, [key]: (event.target.value || undefined) as never })}
      className="min-w-36 flex-1 sm:flex-none"
    >
      <option value="">All</option>
      {values.map((value) => (
        <option key={value} value={value}>
          {name(value)} ({countOf(key, value)})
        </option>
      ))}
      {/* A value from a shared link that this scan has none of still shows as chosen. */}
      {filter[key] && !values.includes(filter[key]) ? <option value={filter[key]}>{name(filter[key])} (0)</option> : null}
    </SelectField>
  );

  return (
    <section aria-labelledby="issues-heading" className="flex flex-col gap-4">
      <div className="flex flex-col gap-1">
        <h2 id="issues-heading" className="text-base font-semibold text-slate-900">
          Issues
        </h2>
        <p className="text-sm text-slate-500">
          {failed ? `The scan failed: ${failed}. What it found before is listed.` : `Scan finished ${formatDateTime(finishedAt)}.`}
        </p>
      </div>
      <div className="flex flex-wrap items-end gap-3">
        {select("severity", "Severity", severities)}
        {select("type", "Type", issueTypes, typeLabel)}
        {select("collection", "Collection", Object.keys(counts?.collection ?? {}).sort())}
        {select("autoFixable", "Auto-fixable", ["true", "false"], (value) => (value === "true" ? "Yes" : "No"))}
      </div>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <BulkRepair scanId={scanId} fixable={fixable} />
        <div className="flex gap-2">
          <a className={linkButton} href={exportUrl(scanId, "csv", filter)} download>
            <Download aria-hidden="true" className="size-4" /> Export CSV
          </a>
          <a className={linkButton} href={exportUrl(scanId, "json", filter)} download>
            <Download aria-hidden="true" className="size-4" /> Export JSON
          </a>
        </div>
      </div>
      <QueryState
        query={query}
        loading="Loading issues"
        error="Could not load issues"
        isEmpty={() => items.length === 0}
        empty={
          <EmptyState icon={ShieldCheck} title={Object.keys(filter).length ? "No issue matches these filters" : "No issues found"}>
            {Object.keys(filter).length
              ? "Set the filters back to “All” to see every issue of this scan."
              : "This scan found nothing wrong in what it checked."}
          </EmptyState>
        }
      >
        {() => (
          <DataTable label="Issues" stackOnPhone columns={<HeadingsWithActions names={["Severity", "Issue", "Document", "Status"]} />}>
            {items.map((issue) => (
              <tr key={issue.id}>
                <td className={td} data-label="Severity">
                  <Badge tone={severityTone[issue.severity]}>{issue.severity}</Badge>
                </td>
                <td className={`${td} min-w-0`} data-label="Issue">
                  <span className="block font-mono text-xs wrap-anywhere text-slate-900">{issue.code}</span>
                  <span className="block max-w-xl wrap-anywhere text-slate-600">{issue.message}</span>
                </td>
                <td className={`${td} min-w-0`} data-label="Document">
                  <span className="block text-xs text-slate-500">
                    {issue.collection} · {typeLabel(issue.type)}
                  </span>
                  <span className="block max-w-xs font-mono text-xs break-all">{issue.documentId}</span>
                </td>
                <td className={td} data-label="Status">
                  <Badge tone={issue.status === "repaired" ? "emerald" : issue.autoFixable ? "indigo" : "slate"}>
                    {issue.status === "repaired" ? "repaired" : issue.autoFixable ? "auto-fixable" : "open"}
                  </Badge>
                </td>
                <ActionsCell>
                  <Button variant="secondary" onClick={() => setOpen(issue)} aria-label={`Details of ${issue.code} on ${issue.documentId}`}>
                    Details
                  </Button>
                </ActionsCell>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      <LoadMoreButton query={query} />
      {open ? <IssueDrawer issue={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}
