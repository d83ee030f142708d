import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "react-router-dom";
import { PageHeader } from "../components/PageHeader";
import { filterFromParams, type IssueFilter } from "../integrity/labels";
import { ScanForm } from "../integrity/ScanForm";
import { ScanHistory } from "../integrity/ScanHistory";
import { ScanIssues } from "../integrity/ScanIssues";
import { ScheduleCard } from "../integrity/ScheduleCard";
import { useDocumentTitle } from "../lib/document-title";
import { useRealtimeEvent, useRealtimeReconnect } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";

/**
 * System → Database Integrity: run scans, follow them live, triage and repair what they find. The
 * scan shown and the list's filters live in the URL, so a reload or a shared link shows the same
 * issues; without a scan named there, the newest one is shown.
 */
export function IntegrityPage() {
  useDocumentTitle("Database integrity");
  const [searchParams, setSearchParams] = useSearchParams();
  const selected = searchParams.get("scan");
  const filter = filterFromParams(searchParams);
  const newest = useQuery({ ...trpc.integrity.scans.queryOptions({ limit: 1 }), enabled: !selected });
  const newestId = newest.data?.items[0]?.id;
  useEffect(() => {
    if (!selected && newestId) setSearchParams({ scan: newestId }, { replace: true });
  }, [selected, newestId, setSearchParams]);
  const show = (scanId: string) => setSearchParams({ scan: scanId }, { replace: true });
  const setFilter = (next: IssueFilter) => {
    if (!selected) return;
    const params: Record<string, string> = { scan: selected };
    for (const [key, value] of Object.entries(next)) if (value) params[key] = value;
    setSearchParams(params, { replace: true });
  };
  // A scan's job reports its progress over /ws: refresh the scan and the history as it moves, and when the socket opens
  // again (progress sent while it was down was never heard).
  const refreshScans = () => {
    void queryClient.invalidateQueries(trpc.integrity.scans.pathFilter());
    void queryClient.invalidateQueries(trpc.integrity.scan.pathFilter());
  };
  useRealtimeEvent("job.progress", (event) => {
    if (event.kind === "integrity_scan") refreshScans();
  });
  useRealtimeReconnect(refreshScans);
  return (
    <>
      <PageHeader
        title="Database integrity"
        description="Check every document against its schema, every reference and every stored file; repair what can be repaired safely."
      />
      <div className="flex flex-col gap-8">
        <div className="grid gap-6 xl:grid-cols-3">
          <div className="xl:col-span-2">
            <ScanForm onStarted={(scan) => show(scan.id)} />
          </div>
          <ScheduleCard />
        </div>
        {selected ? <ScanIssues key={selected} scanId={selected} filter={filter} onFilter={setFilter} /> : null}
        <ScanHistory selectedId={selected} onSelect={show} />
      </div>
    </>
  );
}
