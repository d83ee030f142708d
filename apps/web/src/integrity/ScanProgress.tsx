import { JobProgress } from "../components/JobProgress";
import type { Scan } from "./labels";

/** The scan's progress as a bar that says what it is doing: the collection under way, storage or health. */
export function ScanProgress({ scan }: { scan: Scan }) {
  const { scanned, total, collection } = scan.progress;
  const stage = collection ? `Checking ${collection}` : scan.status === "queued" ? "Waiting for a worker" : "Starting";
  return <JobProgress label={`Scan ${scan.id} progress`} stage={stage} done={scanned} total={total} suffix="documents" />;
}
