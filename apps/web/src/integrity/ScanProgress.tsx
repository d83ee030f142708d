import type { Scan } from "./labels";

/** The scan's progress as a bar that says what it is doing: the collection under way, storage or health. */
export function ScanProgress({ scan }: { scan: Scan }) {
  const { scanned, total, collection } = scan.progress;
  const percent = total ? Math.min(100, Math.round((scanned / total) * 100)) : null;
  const stage = collection ? `Checking ${collection}` : scan.status === "queued" ? "Waiting for a worker" : "Starting";
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex justify-between gap-3 text-sm">
        <span className="truncate text-slate-700">{stage}</span>
        <span className="shrink-0 text-slate-500 tabular-nums">
          {scanned.toLocaleString()} / {total === null ? "…" : total.toLocaleString()} documents
        </span>
      </div>
      <div
        role="progressbar"
        aria-label={`Scan ${scan.id} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        aria-valuetext={percent === null ? stage : `${percent}%, ${stage}`}
        className="h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div className="h-full rounded-full bg-indigo-600 transition-[width]" style={{ width: `${percent ?? 5}%` }} />
      </div>
    </div>
  );
}
