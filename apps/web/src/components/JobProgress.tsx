/** A job's progress as a bar with what it is doing; `unit` names what `done` counts. */
export function JobProgress({
  label,
  stage,
  done,
  total,
  unit,
  suffix = "",
}: {
  label: string;
  stage: string;
  done: number;
  total: number | null;
  unit?: (value: number) => string;
  /** What is counted, after the figures ("documents"). */
  suffix?: string;
}) {
  const percent = total ? Math.min(100, Math.round((done / total) * 100)) : null;
  const show = unit ?? ((value: number) => value.toLocaleString());
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex justify-between gap-3 text-sm">
        <span className="truncate text-slate-700">{stage}</span>
        <span className="shrink-0 text-slate-500 tabular-nums">
          {show(done)} / {total === null ? "…" : show(total)}
          {suffix ? ` ${suffix}` : null}
        </span>
      </div>
      <div
        role="progressbar"
        aria-label={label}
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
