import { History } from "lucide-react";
import { Badge } from "../components/Badge";
import { Button } from "../components/Button";
import { EmptyState } from "../components/EmptyState";
import { LoadMoreButton } from "../components/LoadMoreButton";
import { QueryState } from "../components/QueryState";
import { ActionsCell, DataTable, HeadingsWithActions, td } from "../components/Table";
import { formatShortDateTime } from "../lib/format";
import { pageInput, useCursorPages } from "../lib/useCursorPages";
import { trpc, trpcClient } from "../trpc";
import { isRunning, scanStatusTone, severities, severityTone, triggerLabel, type Scan } from "./labels";
import { ScanProgress } from "./ScanProgress";

const PAGE_SIZE = 20;

/** Recent scans, newest first; a running one shows its progress, and each opens its issues. */
export function ScanHistory({ selectedId, onSelect }: { selectedId: string | null; onSelect(scanId: string): void }) {
  const input = { limit: PAGE_SIZE };
  const { query, items } = useCursorPages(trpc.integrity.scans.infiniteQueryKey(input), (cursor, signal) =>
    trpcClient.integrity.scans.query(pageInput(input, cursor), { signal }),
  );
  return (
    <section aria-labelledby="scan-history-heading" className="flex flex-col gap-3">
      <h2 id="scan-history-heading" className="text-base font-semibold text-slate-900">
        Scan history
      </h2>
      <QueryState
        query={query}
        loading="Loading scans"
        error="Could not load scans"
        isEmpty={() => items.length === 0}
        empty={
          <EmptyState icon={History} title="No scans yet">
            Run a quick scan to check observations and projects.
          </EmptyState>
        }
      >
        {() => (
          <DataTable label="Scans" stackOnPhone columns={<HeadingsWithActions names={["Started", "Kind", "Status", "Found"]} />}>
            {items.map((scan: Scan) => (
              <tr key={scan.id} aria-current={scan.id === selectedId ? "true" : undefined} className={scan.id === selectedId ? "bg-indigo-50/50" : undefined}>
                <td className={td} data-label="Started">
                  {formatShortDateTime(scan.startedAt)}
                  <span className="block text-xs text-slate-500">{triggerLabel[scan.trigger]}</span>
                </td>
                <td className={`${td} capitalize`} data-label="Kind">
                  {scan.kind}
                </td>
                <td className={td} data-label="Status">
                  {isRunning(scan) ? <ScanProgress scan={scan} /> : <Badge tone={scanStatusTone[scan.status]}>{scan.status}</Badge>}
                  {scan.error ? <span className="mt-1 block text-xs text-red-600">{scan.error}</span> : null}
                </td>
                <td className={td} data-label="Found">
                  <span className="flex flex-wrap gap-1">
                    {severities.map((severity) => (
                      <Badge key={severity} tone={scan.summary[severity] > 0 ? severityTone[severity] : "slate"}>
                        {scan.summary[severity]} {severity}
                      </Badge>
                    ))}
                  </span>
                </td>
                <ActionsCell>
                  <Button
                    variant="secondary"
                    onClick={() => onSelect(scan.id)}
                    aria-label={`Show issues of the ${scan.kind} scan of ${formatShortDateTime(scan.startedAt)}`}
                  >
                    Issues
                  </Button>
                </ActionsCell>
              </tr>
            ))}
          </DataTable>
        )}
      </QueryState>
      <LoadMoreButton query={query} />
    </section>
  );
}
