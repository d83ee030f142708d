import { useSearchParams } from "react-router-dom";
import { PageHeader } from "../components/PageHeader";
import { ScanForm } from "../integrity/ScanForm";
import { ScanHistory } from "../integrity/ScanHistory";
import { ScanIssues } from "../integrity/ScanIssues";
import { ScheduleCard } from "../integrity/ScheduleCard";
import { useDocumentTitle } from "../lib/document-title";
import { useRealtimeEvent } from "../lib/realtime";
import { queryClient, trpc } from "../trpc";

/** System → Database Integrity: run scans, follow them live, triage and repair what they find. */
export function IntegrityPage() {
  useDocumentTitle("Database integrity");
  const [searchParams, setSearchParams] = useSearchParams();
  const selected = searchParams.get("scan");
  const show = (scanId: string) => setSearchParams({ scan: scanId }, { replace: true });
  // A scan's job reports its progress over /ws: refresh the scan and the history as it moves.
  useRealtimeEvent("job.progress", (event) => {
    if (event.kind !== "integrity_scan") return;
    void queryClient.invalidateQueries(trpc.integrity.scans.pathFilter());
    void queryClient.invalidateQueries(trpc.integrity.scan.pathFilter());
  });
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
        {selected ? <ScanIssues key={selected} scanId={selected} /> : null}
        <ScanHistory selectedId={selected} onSelect={show} />
      </div>
    </>
  );
}
